// vault: adding, removing and replacing keyslots in a transaction (R-KS-5, L-KS-1, L-PC-7).

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Keyslot changes")
struct KeyslotChangeTests {
    /// R-KS-5: a password change without a rekey rewraps the master key; records stay byte for byte.
    @Test func replaceKeyslot_withoutRekey_changesPassword_recordsUntouched() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "bank", secret: "hunter2")) }
            let recordsBefore = try recordSection(of: vault)

            try vault.write {
                try $0.replaceKeyslot(at: 0, kind: .password, credentials: .password("new pass"), rekey: nil)
            }

            #expect(try recordSection(of: vault) == recordsBefore)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(path: vault.path, credentials: .password(testPassword), configuration: testConfiguration)
            }
            let reopened = try Vault(
                path: vault.path,
                credentials: .password("new pass"),
                configuration: testConfiguration
            )
            #expect(try secret(in: reopened, service: "bank") == "hunter2")
            // The Vault that changed the password keeps working with the keys it holds.
            try vault.write { try $0.set(makeDraft(service: "after")) }
            #expect(try secret(in: vault, service: "after") != nil)
            #expect(vault.openedKeyslot == 0)
        }
    }

    @Test func addKeyslot_keyFile_opensTheVault_andOpenedSlotIsFollowed() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let keyFile = SecretBytes(bytes: SystemRandom().bytes(64))
            try vault.write { try $0.addKeyslot(.keyFile, credentials: Credentials(keyFile: keyFile)) }
            try vault.write { try $0.set(makeDraft(service: "mail")) }
            let byKeyFile = try Vault(
                path: vault.path,
                credentials: Credentials(keyFile: keyFile),
                configuration: testConfiguration
            )
            #expect(byKeyFile.openedKeyslot == 1)
            #expect(try secret(in: byKeyFile, service: "mail") != nil)
            #expect(try vault.read { $0.header.keyslots.map(\.kind) } == [.password, .keyFile])

            // Removing slot 0 moves the key-file slot to position 0; the Vault follows it. (Without
            // a rekey, so that `vault`, which holds the same master key, keeps reading.)
            try byKeyFile.write { try $0.removeKeyslot(at: 0, rekey: nil) }
            #expect(byKeyFile.openedKeyslot == 0)
            #expect(try secret(in: vault, service: "mail") != nil)
        }
    }

    @Test func addKeyslot_belowTheKDFFloor_isRefusedOutsideTests() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            var production = VaultConfiguration()
            production.rollbackState = .disabled  // never the real home's state
            let strict = try Vault(path: vault.path, credentials: .password(testPassword), configuration: production)
            #expect(throws: VaultFormatError(.kdfRejected)) {
                try strict.write {
                    try $0.addKeyslot(
                        .password,
                        credentials: .password("x"),
                        kdf: KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1)
                    )
                }
            }
        }
    }

    @Test func removeKeyslot_lastMasterScopeSlot_isRefused() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/test.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: deviceConfiguration(secretPath)
            )
            let before = try fileBytes(vault.path)
            #expect(throws: VaultFormatError(.invalidParameter)) { try vault.write { try $0.removeKeyslot(at: 0) } }
            #expect(throws: VaultFormatError(.invalidParameter)) { try vault.write { try $0.removeKeyslot(at: 5) } }
            #expect(try fileBytes(vault.path) == before)
        }
    }

    /// L-PC-7: removing the last password keyslot deletes the whenPasscodeSetThisDeviceOnly items.
    @Test func removeLastPasswordKeyslot_deletesPasscodeItemsOnly() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(
                in: directory,
                configuration: deviceConfiguration(makeDeviceSecretFile(in: directory))
            )
            var passcode = makeDraft(service: "passcode")
            passcode.protectionClass = .whenPasscodeSetThisDeviceOnly
            let keyFile = SecretBytes(bytes: SystemRandom().bytes(32))
            try vault.write { txn in
                try txn.set(passcode)
                try txn.set(makeDraft(service: "plain"))
                try txn.addKeyslot(.keyFile, credentials: Credentials(keyFile: keyFile))
            }
            #expect(try secret(in: vault, service: "passcode") != nil)
            try vault.write {
                try $0.removeKeyslot(at: 0, rekey: RekeyOptions(credentials: [Credentials(keyFile: keyFile)]))
            }
            #expect(try secret(in: vault, service: "passcode") == nil)
            #expect(try secret(in: vault, service: "plain") != nil)
            // Without a password keyslot, the class cannot be stored at all.
            let error = try #require(throws: VaultIOError.self) { try vault.write { try $0.set(passcode) } }
            #expect(error.code == .protectionUnavailable)
        }
    }

    /// Crash safety extends to keyslot changes: a failed commit keeps the old password.
    @Test(arguments: [(Syscall.fsync, 0), (.rename, 0), (.fsync, 1), (.write, 0)])
    func replaceKeyslot_failedCommit_keepsOldPassword(_ fault: (Syscall, Int)) throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "bank")) }
            let before = try fileBytes(vault.path)
            #expect(throws: VaultIOError.self) {
                try Syscalls.inject(fault.0, errno: EIO, after: fault.1) {
                    try vault.write { try $0.replaceKeyslot(at: 0, kind: .password, credentials: .password("new")) }
                }
            }
            #expect(try fileBytes(vault.path) == before)
            let reopened = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(try secret(in: reopened, service: "bank") != nil)
        }
    }
}
