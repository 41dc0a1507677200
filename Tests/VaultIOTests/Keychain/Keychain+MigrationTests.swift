// vault: Valet-style migration between services, access groups and vaults, and the standard vault.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Migration and standard vault")
struct MigrationTests {
    @Test func move_betweenServices_withRenameAndSkip() throws {
        try withKeychainVault { vault, _ throws in
            let old = Keychain(service: "old", vault: vault)
            let new = Keychain(service: "new", accessGroup: "group", vault: vault)
            try old.set("1", forKey: "a")
            try old.set("2", forKey: "b")
            try old.set("3", forKey: "skip")
            let result = try new.migrateItems(from: old, removingFromSource: true) { item in
                guard item.key != "skip" else { return nil }
                var renamed = item
                renamed.key = "renamed-" + item.key
                return renamed
            }
            #expect(result.migrated.sorted() == ["renamed-a", "renamed-b"])
            #expect(result.skipped == ["skip"])
            #expect(try new.allKeys() == ["renamed-a", "renamed-b"])
            #expect(try new.string(forKey: "renamed-b") == "2")
            #expect(try old.allKeys() == [])
        }
    }

    @Test func conflict_leavesBothSidesUnchanged() throws {
        try withTemporaryDirectory { directory throws in
            let one = try makeVault(in: directory, name: "one.vault")
            let two = try makeVault(in: directory, name: "two.vault")
            let source = Keychain(service: "s", vault: one)
            let target = Keychain(service: "s", vault: two)
            try source.set("a", forKey: "a")
            try source.set("b", forKey: "taken")
            try target.set("mine", forKey: "taken")
            let before = (try fileBytes(one.path), try fileBytes(two.path))
            #expect(throws: KeychainError.self) { try target.migrateItems(from: source, removingFromSource: true) }
            #expect(try fileBytes(one.path) == before.0)
            #expect(try fileBytes(two.path) == before.1)
        }
    }

    @Test func copy_betweenVaults_keepsSource() throws {
        try withTemporaryDirectory { directory throws in
            let one = try makeVault(in: directory, name: "one.vault")
            let two = try makeVault(in: directory, name: "two.vault")
            let source = Keychain(service: "s", vault: one)
            try source.set(7, forKey: "n")
            let target = Keychain(service: "t", vault: two)
            try target.migrateItems(from: source)
            #expect(try target.get("n", as: Int.self) == 7)
            #expect(try source.get("n", as: Int.self) == 7)
        }
    }

    /// L-STD-1: the standard vault is created on first use, opens with the device secret only,
    /// and a copy of the vault file without the device secret opens nowhere.
    @Test func standardVault_worksWithoutPassword_andCopyAloneIsUseless() throws {
        try withTemporaryDirectory { directory throws in
            let vault = try Vault.standard(directory: directory + "/xdg/vault", configuration: testConfiguration)
            #expect(try Vault.standard(directory: directory + "/xdg/vault") === vault)
            let keychain = Keychain(service: "app", vault: vault)
            try keychain.set("token", forKey: "k")
            #expect(permissions(directory + "/xdg/vault") == 0o700)
            #expect(try vault.read { $0.header.keyslots.map { "\($0.kind)/\($0.scope)" } } == ["device/master"])
            // Locking and unlocking needs no prompt: the device secret is enough.
            vault.lock()
            #expect(throws: KeychainError.locked) { try keychain.string(forKey: "k") }
            try vault.unlock()
            #expect(try keychain.string(forKey: "k") == "token")
            // The file copied elsewhere, with another machine's secret, does not open.
            let otherSecret = makeDeviceSecretFile(in: directory, name: "other.secret")
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(path: vault.path, credentials: Credentials(), configuration: deviceConfiguration(otherSecret))
            }
        }
    }
}
