// vault: the decisions of Spec/library-semantics.md section 10, one test each (L-KC-7 to L-KC-11).

import Foundation
import Testing
import VaultIO

@Suite("Keychain decisions")
struct KeychainDecisionTests {
    // L-KC-7
    @Test func emptyValue_isRefusedByDefault_andTheStoredValueStays() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            try keychain.set("good", forKey: "token")
            #expect(throws: KeychainError.emptyValue) { try keychain.set("", forKey: "token") }
            #expect(throws: KeychainError.emptyValue) { try keychain.set(Data(), forKey: "blob") }
            #expect(try keychain.string(forKey: "token") == "good")
            #expect(try keychain.contains("blob") == false)
        }
    }

    // L-KC-7
    @Test func emptyValue_withStorePolicy_isStored_andReadsEmptyNotNil() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault).emptyValues(.store)
            try keychain.set("", forKey: "token")
            #expect(try keychain.string(forKey: "token") == "")
            // Any keychain reads it: the policy is about writing.
            #expect(try Keychain(service: "com.example", vault: vault).data(forKey: "token") == Data())
        }
    }

    // L-KC-11
    @Test func allItems_areInCreationOrder_thenKey_thenNonSynchronizableFirst() throws {
        try withKeychainVault { vault, _ throws in
            func draft(_ account: String, created: Int64, synchronizable: Bool = false) -> ItemDraft {
                var attributes = ItemAttributes(service: "com.example", account: account)
                (attributes.creationDate, attributes.modificationDate) = (created, created)
                attributes.synchronizable = synchronizable
                return ItemDraft(
                    id: ItemID(random: SystemRandom()),
                    attributes: attributes,
                    secret: SecretBytes(utf8: "v")
                )
            }
            try vault.write { txn in
                for item in [
                    draft("a", created: 3000), draft("c", created: 1000), draft("b", created: 2000),
                    draft("z", created: 5000), draft("y", created: 5000, synchronizable: true),
                    draft("y", created: 5000),
                ] {
                    try txn.set(item)
                }
            }
            let keychain = Keychain(service: "com.example", vault: vault)
            let items = try keychain.allItems()
            #expect(items.map(\.key) == ["c", "b", "a", "y", "y", "z"])
            #expect(items.map(\.synchronizable) == [false, false, false, false, true, false])
            #expect(try keychain.allItems().map(\.persistentReference) == items.map(\.persistentReference))
            #expect(try keychain.allKeys() == ["a", "b", "c", "y", "y", "z"], "allKeys stays sorted by key")
        }
    }

    // L-KC-12
    @Test func migrateItems_fromAnEmptySource_returnsFoundNothing_andWritesNothing() throws {
        try withKeychainVault { vault, _ throws in
            let old = Keychain(service: "old", vault: vault)
            let new = Keychain(service: "new", vault: vault)
            try new.set("already", forKey: "k")
            let generation = try vault.read { $0.header.generation }
            let result = try new.migrateItems(from: old, removingFromSource: true)
            #expect(result.foundNothing)
            #expect(result.migrated.isEmpty && result.skipped.isEmpty && result.leftOnDevice == 0)
            #expect(try vault.read { $0.header.generation } == generation)
            try old.set("v", forKey: "other")
            #expect(!(try new.migrateItems(from: old)).foundNothing)
        }
    }

    // L-KC-13: remove addresses one item; the seed's wider removal is an option.
    @Test func remove_addressesOneCopy_andIncludingKeychainAccessRemovesEveryCopy() throws {
        try withKeychainVault { vault, _ throws in
            let plain = Keychain(service: "s", vault: vault)
            let copies = [
                plain, plain.synchronizable(true), Keychain(service: "s", accessGroup: "g", vault: vault),
                Keychain(service: "s", accessGroup: "g", vault: vault).synchronizable(true),
            ]
            for keychain in copies { try keychain.set("v", forKey: "token") }
            try Keychain(service: "other", vault: vault).set("v", forKey: "token")

            #expect(try plain.remove("token"))
            #expect(try plain.synchronizable(true).string(forKey: "token") == "v")
            #expect(try copies[2].string(forKey: "token") == "v")

            try plain.set("v", forKey: "token")
            #expect(try plain.remove("token", including: .anySynchronizable) == 2)
            #expect(try plain.remove("token", including: .keychainAccess) == 2)
            #expect(try copies.allSatisfy { try $0.contains("token") == false })
            #expect(try Keychain(service: "other", vault: vault).string(forKey: "token") == "v")
        }
    }

    // L-KC-14: accessibility is not part of the scope (Valet's is); a service per accessibility gives Valet's.
    @Test func accessibility_isNotPartOfTheScope_andAServicePerAccessibilityKeepsThemApart() throws {
        try withKeychainVault { vault, _ throws in
            let base = Keychain(service: "com.example", vault: vault)
            try base.accessibility(.whenUnlocked).set("first", forKey: "k")
            try base.accessibility(.afterFirstUnlock).set("second", forKey: "k")
            #expect(try base.allItems().count == 1)
            #expect(try base.attributes(forKey: "k")?.accessibility == .afterFirstUnlock)
            #expect(try base.accessibility(.whenUnlocked).string(forKey: "k") == "second")

            func valetStyle(_ accessibility: Keychain.Accessibility) -> Keychain {
                Keychain(service: "com.example.\(accessibility)", vault: vault).accessibility(accessibility)
            }
            try valetStyle(.whenUnlocked).set("first", forKey: "k")
            try valetStyle(.afterFirstUnlock).set("second", forKey: "k")
            #expect(try valetStyle(.whenUnlocked).string(forKey: "k") == "first")
            #expect(try valetStyle(.afterFirstUnlock).string(forKey: "k") == "second")
        }
    }
}
