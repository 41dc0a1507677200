// vault: regression tests for the findings of the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Security review regressions")
struct ReviewFindingTests {
    /// L-KEY-3: a file replaced by another vault with the same ID (the attacker's master key,
    /// a device keyslot for this machine's secret) is refused, never adopted.
    @Test func replacedVaultWithSameID_isRefused_notAdoptedThroughTheDeviceSecret() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            let victim = try makeVault(in: directory, configuration: deviceConfiguration(secretPath))
            try victim.write { try $0.set(makeDraft(service: "bank")) }
            let device = DeviceSecret(secret: SecretBytes(bytes: try fileBytes(secretPath)))
            let attackerMaster: MasterKey = SystemRandom().key()
            let slot = try KeyHierarchy.makeKeyslot(
                kind: .device,
                wrapping: attackerMaster.secret,
                scope: .masterKey,
                credentials: Credentials(deviceSecret: device),
                vaultID: victim.vaultID
            )
            let keys = KeyHierarchy.keys(master: attackerMaster, deviceSecret: device, vaultID: victim.vaultID)
            let forged = try VaultWriter(vaultID: victim.vaultID, created: 1, keyslots: [slot], keys: keys)
                .encode(now: 2)
            try Data(forged).write(to: URL(fileURLWithPath: victim.path))
            #expect(throws: VaultIOError(.credentialsRequired)) { try secret(in: victim, service: "bank") }
            #expect(throws: VaultIOError(.credentialsRequired)) {
                try victim.write { try $0.set(makeDraft(service: "new")) }
            }
        }
    }

    /// A wrong password never unlocks through the device keyslot of the held device secret.
    @Test func unlockWithWrongPassword_failsEvenWithAMasterScopeDeviceKeyslot() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/v.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: deviceConfiguration(secretPath)
            )
            try vault.write { txn in
                try txn.replaceKeyslot(
                    at: 1,
                    kind: .device,
                    credentials: Credentials(),
                    kdf: nil,
                    scope: .masterKey,
                    rekey: nil
                )
            }
            vault.lock()
            #expect(throws: VaultFormatError(.wrongCredential)) { try vault.unlock(with: .password("wrong")) }
            #expect(vault.isLocked)
            try vault.unlock(with: .password(testPassword))
            #expect(!vault.isLocked)
        }
    }

    /// R-LIM-1: over-long keys are refused or not found, never a crash.
    @Test func overLongKeyOrService_isRefusedOrMissing_notACrash() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let keychain = Keychain(service: "s", vault: vault)
            let long = String(repeating: "a", count: 70_000)
            #expect(try keychain.string(forKey: long) == nil)
            #expect(throws: KeychainError.self) { try keychain.set("v", forKey: long) }
            #expect(throws: KeychainError.self) { try Keychain(service: long, vault: vault).set("v", forKey: "k") }
        }
    }

    /// A device secret another user could have planted or read is refused (like ssh's key checks).
    @Test func deviceSecretFile_readableByOthersOrASymlink_isRefused() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            chmod(secretPath, 0o644)
            #expect(throws: VaultIOError(.invalidDeviceSecret)) {
                try makeVault(in: directory, configuration: deviceConfiguration(secretPath))
            }
            chmod(secretPath, 0o600)
            let link = directory + "/link.secret"
            #expect(symlink(secretPath, link) == 0)
            #expect(throws: VaultIOError.self) {
                try makeVault(in: directory, name: "l.vault", configuration: deviceConfiguration(link))
            }
        }
    }

    /// String interpolation of a Vault shows its path and state, not its items.
    @Test func interpolatedVault_showsNoAttributes() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "mybank.example", account: "alice@corp")) }
            let text = "\(vault)"
            #expect(text.contains("unlocked") && !text.contains("mybank") && !text.contains("alice"))
        }
    }

    /// L-PC-5 at the Vault level: a synchronizable item cannot be device-bound.
    @Test func synchronizableDeviceBoundItem_isRefusedByTheTransaction() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(
                in: directory,
                configuration: deviceConfiguration(makeDeviceSecretFile(in: directory))
            )
            var draft = makeDraft(service: "sync")
            draft.attributes.synchronizable = true
            draft.protectionClass = .afterFirstUnlockThisDeviceOnly
            #expect(throws: VaultFormatError(.invalidParameter)) { try vault.write { try $0.set(draft) } }
        }
    }
}
