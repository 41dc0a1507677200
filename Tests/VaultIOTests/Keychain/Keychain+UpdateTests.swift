// vault: keychain.update (one transaction, under the lock) and Keychain.removeAll(accessGroup:in:).

import Dispatch
import Foundation
import Synchronization
import Testing
import VaultIO

extension KeychainKey where Value == Int {
    fileprivate static let launches = KeychainKey("launches", default: 100)
}

private struct Refused: Error {}

/// Spec: Spec/library-semantics.md (L-KC-8, L-KC-9).
@Suite("Keychain update")
struct KeychainUpdateTests {
    @Test func update_fromManyThreads_losesNoIncrement() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "counter", vault: vault)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                do {
                    for _ in 0..<10 { try keychain.update("count", as: Int.self) { ($0 ?? 0) + 1 } }
                } catch {
                    failures.withLock { $0.append("\(thread): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(try keychain.get("count", as: Int.self) == 80)
        }
    }

    @Test func update_fromTwoProcesses_losesNoIncrement() throws {
        try withKeychainVault { vault, directory throws in
            let keychain = Keychain(service: "counter", vault: vault)
            try keychain.update("count", as: Int.self) { ($0 ?? 0) + 1 }  // warm the code paths before fork
            let path = vault.path
            let configuration = deviceConfiguration(directory + "/device.secret")
            try runInChildProcesses(2) { _ in
                let mine = try Vault(path: path, credentials: .password(testPassword), configuration: configuration)
                let keychain = Keychain(service: "counter", vault: mine)
                for _ in 0..<10 { try keychain.update("count", as: Int.self) { ($0 ?? 0) + 1 } }
            }
            #expect(try keychain.get("count", as: Int.self) == 21)
        }
    }

    @Test func update_keepsIdentity_andReturnsTheNewValue() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault)
            try keychain.label("L").set("a", forKey: "k")
            let before = try #require(try keychain.attributes(forKey: "k"))
            let new = try keychain.update("k", as: String.self) { $0.map { $0 + "b" } }
            #expect(new == "ab")
            let after = try #require(try keychain.attributes(forKey: "k"))
            #expect(after.persistentReference == before.persistentReference)
            #expect(after.creationDate == before.creationDate)
            #expect(after.label == "L")
        }
    }

    @Test func update_returningNil_removes_andOnAMissingKeyWritesNothing() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault)
            try keychain.set("a", forKey: "k")
            #expect(try keychain.update("k", as: String.self) { _ in nil } == nil)
            #expect(try keychain.contains("k") == false)
            let generation = try vault.read { $0.header.generation }
            #expect(try keychain.update("missing", as: String.self) { _ in nil } == nil)
            #expect(try vault.read { $0.header.generation } == generation)
        }
    }

    @Test func update_whoseTransformThrows_writesNothing() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault)
            try keychain.set(1, forKey: "k")
            #expect(throws: KeychainError.self) {
                try keychain.update("k", as: Int.self) { _ in throw Refused() }
            }
            #expect(throws: KeychainError.self) { try keychain.update("k", as: String.self) { $0 } }  // wrong type
            #expect(try keychain.get("k", as: Int.self) == 1)
        }
    }

    @Test func update_typedKey_startsFromTheDefault() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "s", vault: vault)
            #expect(try keychain.update(.launches) { ($0 ?? 0) + 1 } == 101)
            #expect(try keychain.get(.launches) == 101)
        }
    }

    @Test func removeAll_acrossClasses_removesOneAccessGroupOnly() throws {
        try withKeychainVault { vault, _ throws in
            try Keychain(service: "a", accessGroup: "shared", vault: vault).set("1", forKey: "k")
            try Keychain(service: "b", accessGroup: "shared", vault: vault).synchronizable(true).set("2", forKey: "k")
            try Keychain(server: "example.com", protocol: .https, accessGroup: "shared", vault: vault)
                .set("3", forKey: "alice")
            try Keychain(service: "a", vault: vault).set("kept", forKey: "k")
            try Keychain(server: "example.com", protocol: .https, accessGroup: "other", vault: vault)
                .set("kept", forKey: "alice")

            #expect(try Keychain.removeAll(accessGroup: "shared", in: vault) == 3)
            #expect(try vault.read { try $0.index.count } == 2)
            #expect(try Keychain(service: "a", vault: vault).string(forKey: "k") == "kept")
        }
    }

    @Test func removeAll_withPrefix_keepsOtherAccounts() throws {
        try withKeychainVault { vault, _ throws in
            try Keychain(service: "a", keyPrefix: "user1", vault: vault).set("1", forKey: "k")
            try Keychain(server: "example.com", protocol: .https, vault: vault).set("2", forKey: "user1.alice")
            try Keychain(service: "a", keyPrefix: "user2", vault: vault).set("3", forKey: "k")
            #expect(try Keychain.removeAll(keyPrefix: "user1", in: vault) == 2)
            #expect(try Keychain(service: "a", keyPrefix: "user2", vault: vault).string(forKey: "k") == "3")
        }
    }
}
