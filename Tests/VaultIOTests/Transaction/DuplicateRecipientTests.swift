// vault: a recipient is its key (R12-RCP-7): a second stanza of one key cannot keep it in.

import Foundation
import Testing
import VaultIO

@testable import VaultFormat

@Suite("Recipients with more than one stanza")
struct DuplicateRecipientTests {
    /// A 1.2 vault with recipients alice and bob, in which alice, with only her identity,
    /// appended a second stanza for her own key and name (the MAC accepts it: she holds MK).
    func vaultWithAliceTwice(in directory: String) throws -> (Vault, alice: RecipientIdentity, bob: RecipientIdentity) {
        let vault = try makeVault(in: directory)
        let alice = RecipientIdentity.generate()
        let bob = RecipientIdentity.generate()
        try vault.write { txn in
            try txn.upgradeToVersion12()
            try txn.set(makeDraft(service: "before"))
            try txn.addRecipient(alice.recipient, name: "alice")
            try txn.addRecipient(bob.recipient, name: "bob")
        }
        let snapshot = try VaultFileReader(path: vault.path).open(with: .identity(alice))
        var writer = try VaultWriter(updating: snapshot)
        writer.header.recipientStanzas.append(
            try KeyHierarchy.makeRecipientStanza(
                for: Recipient(key: alice.recipient, name: "alice"),
                master: try #require(snapshot.keys.master),
                vaultID: snapshot.header.vaultID
            )
        )
        try Data(writer.encode(now: Vault.currentTime())).write(to: URL(fileURLWithPath: vault.path))
        let reopened = try Vault(
            path: vault.path,
            credentials: .password(testPassword),
            configuration: testConfiguration
        )
        return (reopened, alice, bob)
    }

    /// Before, removeRecipient removed the first of alice's stanzas, the rekey rewrapped the
    /// second, and alice read everything written afterwards.
    @Test func removeRecipient_removesEveryStanzaOfTheKey_andTheRemovedReadsNothingNew() throws {
        try withTemporaryDirectory { directory in
            let (vault, alice, bob) = try vaultWithAliceTwice(in: directory)
            #expect(try vault.read { try $0.recipients() }.filter { $0.key == alice.recipient }.count == 2)
            try vault.write {
                try $0.removeRecipient(alice.recipient, rekey: RekeyOptions(credentials: [.password(testPassword)]))
            }
            try vault.write { try $0.set(makeDraft(service: "after", secret: "new secret")) }
            #expect(try vault.read { try $0.recipients() } == [Recipient(key: bob.recipient, name: "bob")])
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try VaultFileReader(path: vault.path).open(with: .identity(alice))
            }
            let asBob = try Vault(path: vault.path, credentials: .identity(bob), configuration: testConfiguration)
            #expect(try secret(in: asBob, service: "after") == "new secret")
        }
    }

    /// A rekey writes one stanza per key.
    @Test func rekey_writesOneStanzaPerKey() throws {
        try withTemporaryDirectory { directory in
            let (vault, alice, bob) = try vaultWithAliceTwice(in: directory)
            try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            let keys = try vault.read { try $0.recipients().map(\.key) }
            #expect(keys == [alice.recipient, bob.recipient])
            #expect(try VaultFileReader(path: vault.path).header().recipientStanzas.count == 2)
        }
    }
}
