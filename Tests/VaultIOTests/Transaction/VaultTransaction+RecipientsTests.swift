// vault: recipients through the embeddable API: identity files, add, remove with a rekey (format 1.2).

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Recipients in a transaction")
struct RecipientTransactionTests {
    /// R12-TXT-2: created exclusively with mode 0600; loaded only when private to this user.
    @Test func identityFile_isPrivate_andNeverOverwritten() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/id"
            let identity = try IdentityFile.generate(at: path)
            #expect(permissions(path) == 0o600)
            #expect(try IdentityFile.load(at: path).recipient == identity.recipient)
            #expect(throws: VaultIOError(.alreadyExists)) { try IdentityFile.generate(at: path) }
            chmod(path, 0o644)
            #expect(throws: VaultIOError(.invalidIdentity)) { try IdentityFile.load(at: path) }
            let link = directory + "/link"
            symlink(path, link)
            #expect(throws: VaultIOError.self) { try IdentityFile.load(at: link) }
        }
    }

    /// R12-VER-1, R12-MIG-1: a 1.1 vault refuses a recipient until it is raised to 1.2;
    /// then the identity opens it with the master key.
    @Test func addRecipient_needsVersion12_thenIdentityOpens() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try vault.write { try $0.set(makeDraft(service: "db", secret: "s3cret")) }
            let alice = RecipientIdentity.generate()
            #expect(throws: VaultFormatError(.unsupportedVersion)) {
                try vault.write { try $0.addRecipient(alice.recipient, name: "alice") }
            }
            try vault.write { txn in
                try txn.upgradeToVersion12()
                try txn.addRecipient(alice.recipient, name: "alice")
            }
            let opened = try Vault(path: vault.path, credentials: .identity(alice), configuration: testConfiguration)
            #expect(try secret(in: opened, service: "db") == "s3cret")
            #expect(try opened.read { try $0.recipients() } == [Recipient(key: alice.recipient, name: "alice")])
            // The identity holds the master key: it can add items too.
            try opened.write { try $0.set(makeDraft(service: "by alice")) }
            #expect(try secret(in: vault, service: "by alice") != nil)
        }
    }

    /// R12-RCP-6: removing a recipient rekeys; the other recipient is kept without its identity,
    /// and the removed one, with a copy of the file from before, reads nothing written afterwards.
    @Test func removeRecipient_rekeys_keepsTheOthers_andLocksOutTheRemoved() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let alice = RecipientIdentity.generate()
            let bob = RecipientIdentity.generate()
            try vault.write { txn in
                try txn.upgradeToVersion12()
                try txn.set(makeDraft(service: "before"))
                try txn.addRecipient(alice.recipient, name: "alice")
                try txn.addRecipient(bob.recipient, name: "bob")
            }
            let oldCopy = try fileBytes(vault.path)
            let report = try vault.write { txn in
                try txn.removeRecipient(
                    alice.recipient,
                    rekey: RekeyOptions(credentials: [.password(testPassword)])
                )
            }
            #expect(report?.resealed == 1)
            try vault.write { try $0.set(makeDraft(service: "after", secret: "new secret")) }

            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(path: vault.path, credentials: .identity(alice), configuration: testConfiguration)
            }
            let byBob = try Vault(path: vault.path, credentials: .identity(bob), configuration: testConfiguration)
            #expect(try secret(in: byBob, service: "after") == "new secret")
            #expect(try byBob.read { try $0.recipients().map(\.name) } == ["bob"])
            let attack = try OldCopyAttackProbe.secrets(
                current: try fileBytes(vault.path),
                oldCopy: oldCopy,
                old: .identity(alice)
            )
            #expect(attack == nil)
        }
    }

    /// A rekey refuses when a keyslot's credential is missing, and then keeps the recipient.
    @Test func removeRecipient_withoutTheKeyslotsCredential_isRefused() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let alice = RecipientIdentity.generate()
            let bob = RecipientIdentity.generate()
            try vault.write { txn in
                try txn.upgradeToVersion12()
                try txn.addRecipient(alice.recipient, name: "alice")
                try txn.addRecipient(bob.recipient, name: "bob")
            }
            let byBob = try Vault(path: vault.path, credentials: .identity(bob), configuration: testConfiguration)
            #expect(throws: VaultIOError(.rekeyRefused)) {
                try byBob.write { try $0.removeRecipient(alice.recipient) }
            }
            #expect(try byBob.read { try $0.recipients().count } == 2)
        }
    }
}

/// The old-copy attack of issue 9 §1, for VaultIO tests: the keys of an old copy against the current file.
enum OldCopyAttackProbe {
    static func secrets(current: [UInt8], oldCopy: [UInt8], old: Credentials) throws -> [String]? {
        let keys = try VaultSnapshot.open(oldCopy, with: old).keys
        let head = try VaultHead.read(current).bytes
        guard
            let snapshot = try? VaultSnapshot.open(
                headerBytes: head,
                fileLength: current.count,
                source: InMemoryFile(current),
                keys: keys,
                openedKeyslot: 0
            )
        else { return nil }
        return try snapshot.items(includeSecrets: true).map { String(decoding: $0.secret!.copyBytes(), as: UTF8.self) }
    }
}
