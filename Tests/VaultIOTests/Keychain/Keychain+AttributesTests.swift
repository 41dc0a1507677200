// vault: every keychain attribute through Keychain: description, creator, type, flags, generic; nil when unset.

import Foundation
import Testing
import VaultIO

/// Spec: Spec/library-semantics.md (L-KC-4, L-KC-6).
@Suite("Keychain attributes")
struct KeychainAttributeTests {
    @Test func everyAttribute_isWrittenAndReadBack() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
                .label("Label").comment("Comment").attributeDescription("Description")
                .creator("EXMP").type("tokn").invisible().negative().generic(Data([1, 2, 3]))
            try keychain.set("value", forKey: "k")
            let item = try #require(try keychain.attributes(forKey: "k"))
            #expect(item.label == "Label")
            #expect(item.comment == "Comment")
            #expect(item.attributeDescription == "Description")
            #expect(item.creator == "EXMP")
            #expect(item.type == "tokn")
            #expect(item.isInvisible && item.isNegative)
            #expect(item.generic == Data([1, 2, 3]))
            #expect(try keychain.string(forKey: "k") == "value")
        }
    }

    @Test func unsetAttributes_readNil_likeKeychainAccess() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            try keychain.set(Data([9]), forKey: "k")
            let item = try #require(try keychain.attributes(forKey: "k"))
            #expect(item.label == nil)
            #expect(item.comment == nil)
            #expect(item.attributeDescription == nil)
            #expect(item.creator == nil)
            #expect(item.generic == nil)
            #expect(!item.isInvisible && !item.isNegative)
            #expect(item.type == "data", "typed values record their type code (L-KC-4)")
        }
    }

    @Test func updateWithoutAttributes_keepsThem_andEmptyOrFalseClearsThem() throws {
        try withKeychainVault { vault, _ throws in
            let plain = Keychain(service: "com.example", vault: vault)
            try plain.label("L").attributeDescription("D").creator("EXMP").invisible().generic(Data([7]))
                .set("v1", forKey: "k")
            try plain.set("v2", forKey: "k")
            var item = try #require(try plain.attributes(forKey: "k"))
            #expect(item.label == "L" && item.attributeDescription == "D" && item.creator == "EXMP")
            #expect(item.isInvisible && item.generic == Data([7]))

            try plain.label("").attributeDescription("").creator(FourCharacterCode(rawValue: 0)).invisible(false)
                .generic(Data()).set("v3", forKey: "k")
            item = try #require(try plain.attributes(forKey: "k"))
            #expect(item.label == nil && item.attributeDescription == nil && item.creator == nil)
            #expect(!item.isInvisible && item.generic == nil)
        }
    }

    @Test func appTypeCode_isKept_andTypedReadsDecodeByLength() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "com.example", vault: vault)
            try keychain.type("cntr").set(41, forKey: "count")
            #expect(try keychain.get("count", as: Int.self) == 41)
            try keychain.set(42, forKey: "count")  // no type(_:): the app's code stays
            #expect(try keychain.attributes(forKey: "count")?.type == "cntr")
            #expect(try keychain.get("count", as: Int.self) == 42)
            // A library code still guards against the wrong type.
            try keychain.set("text", forKey: "name")
            #expect(throws: KeychainError.self) { try keychain.get("name", as: Int.self) }
        }
    }

    @Test func internetPassword_takesTheSameAttributes() throws {
        try withKeychainVault { vault, _ throws in
            let site = Keychain(server: "example.com", protocol: .https, vault: vault).attributeDescription("web")
            try site.set("pw", forKey: "alice")
            #expect(try site.attributes(forKey: "alice")?.attributeDescription == "web")
        }
    }

    @Test func migration_carriesEveryAttribute() throws {
        try withKeychainVault { vault, _ throws in
            let old = Keychain(service: "old", vault: vault)
            try old.attributeDescription("D").creator("EXMP").negative().generic(Data([5])).set("v", forKey: "k")
            let new = Keychain(service: "new", vault: vault)
            try new.migrateItems(from: old, removingFromSource: true)
            let item = try #require(try new.attributes(forKey: "k"))
            #expect(item.attributeDescription == "D" && item.creator == "EXMP" && item.isNegative)
            #expect(item.generic == Data([5]))
        }
    }

    @Test func fourCharacterCode_parsesFourPrintableCharacters_bigEndian() {
        #expect(FourCharacterCode(string: "aapl")?.rawValue == 0x6161_706C)
        #expect(FourCharacterCode(string: "abc") == nil)
        #expect(FourCharacterCode(string: "abcde") == nil)
        #expect(FourCharacterCode(string: "ab\u{7}c") == nil)
        #expect(FourCharacterCode(string: "éab") == nil)
        #expect(FourCharacterCode(rawValue: 0x6161_706C).description == "aapl")
        #expect(FourCharacterCode(rawValue: 42).description == "0x0000002A")
    }
}
