// vault: a recipient stanza that does not read must not make revocation impossible (review finding).

import Foundation
import Testing

@testable import VaultFormat
@testable import VaultIO

@Suite("Unreadable recipient stanzas")
struct UnreadableRecipientTests {
    /// A malicious recipient (it holds the master key, so the MAC accepts what it writes) adds a
    /// stanza whose info does not open. Every rekey, and so removing that recipient, then fails;
    /// `removeUnreadableRecipients` clears the way, and the recipient can then be removed.
    @Test func maliciousGarbageStanza_isRemovable_thenTheRecipientToo() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let alice = RecipientIdentity.generate()
            let mallory = RecipientIdentity.generate()
            try vault.write { txn in
                try txn.upgradeToVersion12()
                try txn.set(makeDraft(service: "db", secret: "s3cret"))
                try txn.addRecipient(alice.recipient, name: "alice")
                try txn.addRecipient(mallory.recipient, name: "mallory")
            }
            // Mallory, with her identity, writes a stanza whose info is random bytes.
            let byMallory = try Vault(
                path: vault.path,
                credentials: .identity(mallory),
                configuration: testConfiguration
            )
            try byMallory.write { txn in
                var garbage = txn.writer.header.recipientStanzas[0]
                garbage.info = SystemRandom().bytes(garbage.info.count)
                txn.writer.header.recipientStanzas.append(garbage)
                txn.hasChanges = true
            }
            let options = RekeyOptions(credentials: [.password(testPassword)])
            let owner = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(throws: VaultFormatError(.headerAuthentication)) {
                try owner.write { try $0.removeRecipient(mallory.recipient, rekey: options) }
            }
            let (removed, report) = try owner.write { try $0.removeUnreadableRecipients(rekey: options) }
            #expect(removed == 1 && report != nil)
            try owner.write { try $0.removeRecipient(mallory.recipient, rekey: options) }
            #expect(try owner.read { try $0.recipients() } == [Recipient(key: alice.recipient, name: "alice")])
            #expect(throws: VaultFormatError.self) {
                try Vault(path: vault.path, credentials: .identity(mallory), configuration: testConfiguration)
            }
            let byAlice = try Vault(path: vault.path, credentials: .identity(alice), configuration: testConfiguration)
            #expect(try byAlice.read { try $0.recipients().count } == 1)
            // Nothing unreadable left: nothing is written.
            #expect(try owner.write { try $0.removeUnreadableRecipients(rekey: options) }.removed == 0)
        }
    }
}
