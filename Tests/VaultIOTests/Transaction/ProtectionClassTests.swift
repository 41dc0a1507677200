// vault: each protection-class rule of Spec/library-semantics.md (L-PC-*, L-DS-*).

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Protection classes")
struct ProtectionClassTests {
    /// Stores one item of every class in a password+device vault.
    func fill(_ vault: Vault) throws -> Keychain {
        let keychain = Keychain(service: "pc", vault: vault)
        for protection in ProtectionClass.allCases {
            try keychain.accessibility(protection).set("v-\(protection)", forKey: "\(protection)")
        }
        return keychain
    }

    func makeDeviceVault(in directory: String) throws -> Vault {
        try Vault.create(
            at: directory + "/pc.vault",
            credentials: .password(testPassword),
            keyslots: [.password, .device],
            configuration: deviceConfiguration(makeDeviceSecretFile(in: directory))
        )
    }

    /// L-PC-1, L-PC-2: lock() drops whenUnlocked keys (typed error, never nil); afterFirstUnlock and always stay.
    @Test func lock_dropsWhenUnlockedClasses_keepsTheOthers() throws {
        try withTemporaryDirectory { directory throws in
            let vault = try makeDeviceVault(in: directory)
            let keychain = try fill(vault)
            vault.lock()
            #expect(vault.isLocked)
            for protection in ProtectionClass.allCases {
                if Vault.lockedClasses.contains(protection) {
                    #expect(throws: KeychainError.locked) { try keychain.string(forKey: "\(protection)") }
                    #expect(throws: KeychainError.locked) { try keychain.contains("\(protection)") }
                } else {
                    #expect(try keychain.string(forKey: "\(protection)") == "v-\(protection)")
                }
            }
            // The raw Vault API reports the locked error as a VaultIOError.
            let error = try #require(throws: VaultIOError.self) {
                try vault.read { snapshot in try snapshot.items(includeSecrets: true) }
            }
            #expect(error.code == .locked)
            // Writing an afterFirstUnlock item still works; keyslot changes do not.
            try keychain.accessibility(.afterFirstUnlock).set("new", forKey: "later")
            #expect(throws: KeychainError.locked) { try keychain.set("x", forKey: "whenUnlocked") }
            #expect(throws: VaultIOError.self) {
                try vault.write { try $0.addKeyslot(.password, credentials: .password("other")) }
            }
            #expect(throws: KeychainError.locked) { try keychain.allKeys() }

            #expect(throws: VaultFormatError(.wrongCredential)) { try vault.unlock(with: .password("wrong")) }
            try vault.unlock(with: .password(testPassword))
            #expect(try keychain.string(forKey: "whenUnlocked") == "v-whenUnlocked")
        }
    }

    @Test func idleTimeout_locksTheVault() throws {
        try withTemporaryDirectory { directory throws in
            var configuration = deviceConfiguration(makeDeviceSecretFile(in: directory))
            configuration.idleTimeout = .milliseconds(150)
            let vault = try Vault.create(
                at: directory + "/idle.vault",
                credentials: .password(testPassword),
                configuration: configuration
            )
            let keychain = Keychain(service: "s", vault: vault)
            try keychain.set("v", forKey: "k")
            #expect(!vault.isLocked)
            usleep(400_000)
            // The background timer locked it; no call was needed.
            #expect(!vault.heldClasses.contains(.whenUnlocked))
            #expect(throws: KeychainError.locked) { try keychain.string(forKey: "k") }
        }
    }

    /// L-PC-3: always classes read with only the device secret on this device.
    @Test func always_readableWithDeviceSecretOnly() throws {
        try withTemporaryDirectory { directory throws in
            let vault = try makeDeviceVault(in: directory)
            _ = try fill(vault)
            let deviceOnly = try Vault(
                path: vault.path,
                credentials: Credentials(),
                configuration: deviceConfiguration(directory + "/device.secret")
            )
            let keychain = Keychain(service: "pc", vault: deviceOnly)
            #expect(try keychain.string(forKey: "always") == "v-always")
            #expect(try keychain.string(forKey: "alwaysThisDeviceOnly") == "v-alwaysThisDeviceOnly")
            #expect(throws: KeychainError.locked) { try keychain.string(forKey: "afterFirstUnlock") }
            // With the password anywhere (no device secret), always is readable too.
            let elsewhere = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(try Keychain(service: "pc", vault: elsewhere).string(forKey: "always") == "v-always")
        }
    }

    /// L-PC-4: another machine's device secret sees ThisDeviceOnly items as another device's.
    @Test func thisDeviceOnly_onAnotherMachine_isReportedAsOtherDevice() throws {
        try withTemporaryDirectory { directory throws in
            let vault = try makeDeviceVault(in: directory)
            _ = try fill(vault)
            let otherSecret = makeDeviceSecretFile(in: directory, name: "other-machine.secret")
            let other = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: deviceConfiguration(otherSecret)
            )
            let keychain = Keychain(service: "pc", vault: other)
            #expect(throws: KeychainError.otherDevice) { try keychain.string(forKey: "whenUnlockedThisDeviceOnly") }
            #expect(try keychain.string(forKey: "whenUnlocked") == "v-whenUnlocked")
            #expect(try keychain.allKeys() == ["afterFirstUnlock", "always", "whenUnlocked"])
            let foreign = try other.inventory().filter { $0.availability == .otherDevice }
            #expect(foreign.count == 4)
            #expect(other.debugDescription.contains("<other device>"))
            // Migration to this other device leaves them out.
            let target = Keychain(service: "copy", vault: other)
            let result = try target.migrateItems(from: keychain)
            #expect(result.leftOnDevice == 4)
            #expect(try target.allKeys().count == 3)
        }
    }

    /// L-PC-6: whenPasscodeSetThisDeviceOnly needs a password keyslot.
    @Test func whenPasscodeSet_refusedWithoutPasswordKeyslot() throws {
        try withTemporaryDirectory { directory throws in
            let secretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/kf.vault",
                credentials: Credentials(keyFile: SecretBytes(bytes: [UInt8](repeating: 7, count: 32))),
                keyslots: [.keyFile],
                configuration: deviceConfiguration(secretPath)
            )
            let keychain = Keychain(service: "s", vault: vault).accessibility(.whenPasscodeSetThisDeviceOnly)
            #expect(throws: KeychainError.self) { try keychain.set("v", forKey: "k") }
            #expect(try keychain.contains("k") == false)
        }
    }

    /// L-PC-8: changing accessibility re-encrypts that item only.
    @Test func changingAccessibility_reencryptsThatItemOnly() throws {
        try withTemporaryDirectory { directory throws in
            let vault = try makeDeviceVault(in: directory)
            let keychain = Keychain(service: "s", vault: vault)
            try keychain.set("a", forKey: "a")
            try keychain.set("b", forKey: "b")
            let recordsOf = { (v: Vault) in
                try v.read { s in
                    Dictionary(
                        uniqueKeysWithValues: try (0..<(try s.index.count)).map {
                            (try s.index.entry(at: $0).itemID, try s.recordBytes(at: $0))
                        }
                    )
                }
            }
            let before = try recordsOf(vault)
            let idA = try #require(try keychain.attributes(forKey: "a")).persistentReference
            let idB = try #require(try keychain.attributes(forKey: "b")).persistentReference
            _ = try vault.write { try $0.setProtectionClass(.afterFirstUnlockThisDeviceOnly, for: idA) }
            let after = try recordsOf(vault)
            #expect(after[idB] == before[idB])
            #expect(after[idA] == nil)
            #expect(try keychain.attributes(forKey: "a")?.accessibility == .afterFirstUnlockThisDeviceOnly)
            // Format 1.1 (R11-DEV-1): a device-bound item lives under its device-tagged ID, which
            // keeps the first 8 bytes; the old ID is left with a deletion record.
            let newA = try #require(try keychain.attributes(forKey: "a")).persistentReference
            #expect(newA != idA && newA.bytes.prefix(8) == idA.bytes.prefix(8))
            #expect(try vault.read { try $0.index.deletions.map(\.itemID) } == [idA])
            #expect(try keychain.string(forKey: "a") == "a")
        }
    }

    /// L-DS-1: the device-secret file is created once, 0600, in a 0700 directory, and reused.
    @Test func deviceSecretFile_createdExclusively0600_andReused() throws {
        try withTemporaryDirectory { directory throws in
            let path = directory + "/data/vault/device-secret"
            let first = try DeviceSecretFile.loadOrCreate(at: path)
            let second = try DeviceSecretFile.loadOrCreate(at: path)
            #expect(first.secret == second.secret)
            #expect(permissions(path) == 0o600)
            #expect(permissions(directory + "/data/vault") == 0o700)
            #expect(try fileBytes(path).count == 32)
            #expect(try directoryNames(directory + "/data/vault") == ["device-secret"])
        }
    }
}
