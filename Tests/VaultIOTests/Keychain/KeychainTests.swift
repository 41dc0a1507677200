// vault: the seed libraries' behaviours (KeychainAccess, SwiftKeychainWrapper, Lockbox, Valet…) against Keychain.

import Foundation
import Testing
import VaultFormat
import VaultIO

/// Runs `body` with a fresh test vault in a temporary directory.
func withKeychainVault<R>(_ body: (Vault, String) throws -> R) throws -> R {
    try withTemporaryDirectory { directory throws in
        let vault = try makeVault(
            in: directory,
            configuration: deviceConfiguration(makeDeviceSecretFile(in: directory))
        )
        return try body(vault, directory)
    }
}

@Suite("Keychain")
struct KeychainTests {
    @Test func setTwice_returnsSecondValue() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            try keychain.set("first", forKey: "token")
            try keychain.set("second", forKey: "token")
            #expect(try keychain.string(forKey: "token") == "second")
            #expect(try keychain.allKeys() == ["token"])
        }
    }

    @Test func missingKey_isNil_andAllKeysOfEmptyVaultIsEmpty() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            #expect(try keychain.string(forKey: "nothing") == nil)
            #expect(try keychain.contains("nothing") == false)
            #expect(try keychain.allKeys() == [])
            #expect(try keychain.remove("nothing") == false)
        }
    }

    @Test func subscriptAssigningNil_deletes() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            keychain["user"] = "alice"
            keychain[data: "blob"] = Data([1, 2, 3])
            #expect(keychain["user"] == "alice")
            #expect(keychain[data: "blob"] == Data([1, 2, 3]))
            keychain["user"] = nil
            keychain[data: "blob"] = nil
            #expect(try keychain.contains("user") == false)
            #expect(try keychain.allKeys() == [])
        }
    }

    @Test func emptyKey_throwsEmptyKey() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            #expect(throws: KeychainError.emptyKey) { try keychain.set("x", forKey: "") }
            #expect(throws: KeychainError.emptyKey) { try keychain.string(forKey: "") }
        }
    }

    @Test func servicesAndAccessGroups_areIsolated_andRemoveAllIsScoped() throws {
        try withKeychainVault { vault, _ throws in
            let a = Keychain(service: "a", vault: vault)
            let b = Keychain(service: "b", vault: vault)
            let aGroup = Keychain(service: "a", accessGroup: "team.shared", vault: vault)
            try a.set("in a", forKey: "k")
            try a.synchronizable(true).set("in a, synced", forKey: "k")
            try b.set("in b", forKey: "k")
            try aGroup.set("in a group", forKey: "k")
            #expect(try a.string(forKey: "k") == "in a")
            #expect(try a.synchronizable(true).string(forKey: "k") == "in a, synced")
            #expect(try b.string(forKey: "k") == "in b")
            #expect(try aGroup.string(forKey: "k") == "in a group")
            #expect(try a.allItems().count == 2)

            try a.removeAll()
            #expect(try a.allKeys() == [])
            #expect(try a.synchronizable(true).string(forKey: "k") == nil)
            #expect(try b.string(forKey: "k") == "in b")
            #expect(try aGroup.string(forKey: "k") == "in a group")
        }
    }

    @Test func keyPrefix_isAppliedLockboxStyle_andScopesListing() throws {
        try withKeychainVault { vault, _ throws in
            let plain = Keychain(service: "s", vault: vault)
            let prefixed = Keychain(service: "s", keyPrefix: "com.example", vault: vault)
            try prefixed.set("v", forKey: "token")
            try plain.set("w", forKey: "other")
            #expect(try plain.string(forKey: "com.example.token") == "v")
            #expect(try prefixed.allKeys() == ["token"])
            #expect(try plain.allKeys() == ["com.example.token", "other"])
        }
    }

    @Test func attributes_roundTrip_andPersistentReferenceIsStable() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault).label("Label").comment("Comment")
            try keychain.set("one", forKey: "k")
            let first = try #require(try keychain.attributes(forKey: "k"))
            try Keychain(service: "s", vault: vault).accessibility(.afterFirstUnlock).set("two", forKey: "k")
            let second = try #require(try keychain.attributes(forKey: "k"))
            #expect(first.label == "Label" && second.label == "Label")
            #expect(second.comment == "Comment")
            #expect(second.persistentReference == first.persistentReference)
            #expect(second.creationDate == first.creationDate)
            #expect(second.modificationDate >= first.modificationDate)
            #expect(second.accessibility == .afterFirstUnlock)
            #expect(first.value == nil)
            #expect(try keychain.allItems(includingValues: true).first?.value == Data("two".utf8))
        }
    }

    @Test func internetPasswords_scopedByLocation_roundTripFields() throws {
        try withKeychainVault { vault, _ throws in
            let site = Keychain(
                server: "example.com",
                protocol: .https,
                authenticationType: .htmlForm,
                port: 443,
                path: "/login",
                securityDomain: "realm",
                vault: vault
            )
            let other = Keychain(server: "example.com", protocol: .http, vault: vault)
            try site.set("pw", forKey: "alice")
            #expect(try other.string(forKey: "alice") == nil)
            let item = try #require(try site.attributes(forKey: "alice"))
            #expect(item.itemClass == .internetPassword)
            #expect(
                item.internetLocation
                    == InternetLocation(
                        server: "example.com",
                        protocol: .https,
                        authenticationType: .htmlForm,
                        port: 443,
                        path: "/login",
                        securityDomain: "realm"
                    )
            )
            #expect(try site.allKeys() == ["alice"])
        }
    }

    /// Every accessibility level round-trips and is reported back.
    @Test(arguments: ProtectionClass.allCases)
    func everyAccessibility_roundTripsAndIsReported(_ accessibility: ProtectionClass) throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault).accessibility(accessibility)
            try keychain.set("v", forKey: "k")
            #expect(try keychain.string(forKey: "k") == "v")
            #expect(try keychain.attributes(forKey: "k")?.accessibility == accessibility)
        }
    }

    @Test func synchronizableThisDeviceOnly_isInvalid() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault).synchronizable(true).accessibility(
                .alwaysThisDeviceOnly
            )
            #expect(throws: KeychainError.self) { try keychain.set("v", forKey: "k") }
        }
    }

    @Test func debugDescription_listsItemsWithoutSecrets() throws {
        try withKeychainVault { vault, _ throws in
            try Keychain(service: "mail", vault: vault).set("hunter2-secret", forKey: "alice")
            let text = vault.debugDescription
            #expect(text.contains("\"mail\"/\"alice\""))
            #expect(!text.contains("hunter2"))
            #expect(!String(describing: try Keychain(service: "mail", vault: vault).allItems()).contains("hunter2"))
        }
    }

    @Test func wrongPassword_and_corruptFile_throwTypedErrors() throws {
        try withKeychainVault { vault, directory throws in
            #expect(KeychainError(VaultFormatError(.wrongCredential)) == .wrongPassword)
            let path = directory + "/foreign.vault"
            _ = FileManager.default.createFile(atPath: path, contents: Data("not a vault at all, just text".utf8))
            let error = try #require(throws: (any Error).self) {
                try Vault(path: path, credentials: .password("x"), configuration: testConfiguration)
            }
            #expect(KeychainError(error) == .corrupt(what: "file (not a vault)"))
        }
    }

    /// Password generator shape and uniqueness over 100,000 draws are tested in
    /// VaultFormatTests (PasswordGeneratorTests); here only that VaultIO re-exports it.
    @Test func passwordGenerator_isReachableFromVaultIO() throws {
        #expect(try PasswordGenerator().generate().count == 15)
    }
}
