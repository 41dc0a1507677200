// vault: keyslot kinds, the device-secret file, and how credentials unlock.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Keyslots")
struct KeyslotTests {
    @Test func deviceSecretFile_opensTheDeviceKeyslotWithBaseKeyOnly() throws {
        try withTemporaryDirectory { directory in
            var configuration = testConfiguration
            configuration.deviceSecretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/test.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: configuration
            )
            var always = makeDraft(service: "wifi", secret: "always readable")
            always.protectionClass = .alwaysThisDeviceOnly
            try vault.write { txn in
                try txn.set(always)
                try txn.set(makeDraft(service: "bank"))
            }
            #expect(try vault.read { $0.header.keyslots.map(\.scope) } == [.masterKey, .baseKey])

            let deviceOnly = try Vault(path: vault.path, credentials: Credentials(), configuration: configuration)
            #expect(try secret(in: deviceOnly, service: "wifi") == "always readable")
            // L-PC-2: a class key that is not held reads as locked, whatever the reason.
            #expect(throws: VaultIOError(.locked)) { try secret(in: deviceOnly, service: "bank") }
        }
    }

    @Test func deviceSecretFile_ofWrongSize_throwsInvalidDeviceSecret() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/device.secret"
            #expect(
                FileManager.default.createFile(
                    atPath: path,
                    contents: Data([1, 2, 3]),
                    attributes: [.posixPermissions: 0o600]
                )
            )
            var configuration = testConfiguration
            configuration.deviceSecretPath = path
            #expect(throws: VaultIOError(.invalidDeviceSecret)) {
                try makeVault(in: directory, configuration: configuration)
            }
        }
    }

    @Test func create_withOnlyADeviceKeyslot_isRefused() throws {
        try withTemporaryDirectory { directory in
            var configuration = testConfiguration
            configuration.deviceSecretPath = makeDeviceSecretFile(in: directory)
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try Vault.create(
                    at: directory + "/test.vault",
                    credentials: Credentials(),
                    keyslots: [.device],
                    configuration: configuration
                )
            }
        }
    }

    /// A base-scope device slot must not shadow the password slot when both credentials are given
    /// (R-KS-3); the first commit of VaultFormat tried the cheap device slot first and lost the master key.
    @Test func passwordAndDeviceSecret_unlockTheMasterKey() throws {
        try withTemporaryDirectory { directory in
            var configuration = testConfiguration
            configuration.deviceSecretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/test.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: configuration
            )
            let opened = try vault.read { $0.openedKeyslot }
            #expect(opened == 0)
            try vault.write { try $0.set(makeDraft(service: "bank")) }
            #expect(try secret(in: vault, service: "bank") != nil)
        }
    }
}
