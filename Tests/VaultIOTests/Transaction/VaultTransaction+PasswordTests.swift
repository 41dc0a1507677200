// vault: changing the opened password keyslot, and removing the key-file keyslots.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("VaultTransaction password changes")
struct VaultTransactionPasswordTests {
    @Test func changePassword_replacesTheOpenedPasswordKeyslot() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write {
                try $0.addKeyslot(.password, credentials: .password("second"), kdf: testConfiguration.kdf)
            }
            let change = try vault.write {
                try $0.changePassword(to: SecretBytes(utf8: "third"), keeping: Credentials(), openedKeyslot: 1)
            }
            #expect(change == .changed(keyslot: 1))
            _ = try Vault(path: vault.path, credentials: .password("third"), configuration: testConfiguration)
            _ = try Vault(path: vault.path, credentials: .password(testPassword), configuration: testConfiguration)
        }
    }

    @Test func changePassword_withoutAPasswordKeyslot_addsOne() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let key = KeyFileDigest(contents: SecretBytes(bytes: [UInt8](repeating: 9, count: 32)))
            try vault.write {
                try $0.addKeyslot(.keyFile, credentials: Credentials(keyFileDigest: key))
                try $0.removeKeyslot(at: 0, rekey: nil)
            }
            let change = try vault.write {
                try $0.changePassword(
                    to: SecretBytes(utf8: "new"),
                    keeping: Credentials(),
                    openedKeyslot: 0,
                    kdf: testConfiguration.kdf
                )
            }
            #expect(change == .added(keyslot: 1))
        }
    }

    @Test func removeKeyFileKeyslots_removesEachOrSaysThereIsNone() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(throws: VaultIOError(.keyslotNotFound)) { try vault.write { try $0.removeKeyFileKeyslots() } }
            let key = KeyFileDigest(contents: SecretBytes(bytes: [UInt8](repeating: 9, count: 32)))
            try vault.write {
                try $0.addKeyslot(.keyFile, credentials: Credentials(keyFileDigest: key))
                try $0.addKeyslot(.keyFile, credentials: Credentials(keyFileDigest: key))
            }
            #expect(try vault.write { try $0.removeKeyFileKeyslots() } == 2)
            #expect(try vault.write { $0.keyslots.count } == 1)
        }
    }
}
