// vault: typed values: fixed encodings, Codable as JSON, conversion errors, typed keys, Result, @KeychainStored.

import Foundation
import Testing
import VaultFormat
import VaultIO

struct Profile: Codable, Equatable, Sendable {
    var name: String
    var age: Int
}

@Suite("Typed values")
struct TypedValueTests {
    @Test func everyTypedValue_roundTrips() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "typed", vault: vault)
            let date = Date(timeIntervalSince1970: 1_700_000_000.25)
            try keychain.set("text ✓", forKey: "string")
            try keychain.set(Data([0, 255, 7]), forKey: "data")
            try keychain.set(-42, forKey: "int")
            try keychain.set(true, forKey: "bool")
            try keychain.set(3.25, forKey: "double")
            try keychain.set(Float(1.5), forKey: "float")
            try keychain.set(date, forKey: "date")
            try keychain.set(Profile(name: "Ann", age: 40), forKey: "profile")
            #expect(try keychain.get("string", as: String.self) == "text ✓")
            #expect(try keychain.get("data", as: Data.self) == Data([0, 255, 7]))
            #expect(try keychain.get("int", as: Int.self) == -42)
            #expect(try keychain.get("bool", as: Bool.self) == true)
            #expect(try keychain.get("double", as: Double.self) == 3.25)
            #expect(try keychain.get("float", as: Float.self) == 1.5)
            #expect(try keychain.get("date", as: Date.self) == date)
            #expect(try keychain.get("profile", as: Profile.self) == Profile(name: "Ann", age: 40))
        }
    }

    @Test func encodings_areFixedLittleEndian() throws {
        #expect(try KeychainValueCodec.encode(1).bytes == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(try KeychainValueCodec.encode(Float(1)).bytes == [0, 0, 0x80, 0x3f])
        #expect(try KeychainValueCodec.encode(1.0).bytes == [0, 0, 0, 0, 0, 0, 0xf0, 0x3f])
        #expect(try KeychainValueCodec.encode(false).bytes == [0])
    }

    @Test func wrongType_throwsConversion() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "typed", vault: vault)
            try keychain.set("not a number", forKey: "k")
            try keychain.set(7, forKey: "n")
            #expect(throws: KeychainError.conversion(expected: "Int", stored: "String")) {
                try keychain.get("k", as: Int.self)
            }
            #expect(throws: KeychainError.conversion(expected: "String", stored: "Int")) {
                try keychain.get("n", as: String.self)
            }
            #expect(throws: KeychainError.self) { try keychain.get("k", as: Profile.self) }
            #expect(try keychain.get("n", as: Data.self)?.count == 8)
        }
    }

    @Test func typedKeys_defaults_require_andResult() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "typed", vault: vault)
            let launches = Keychain.Key<Int>("launches", default: 0)
            let token = Keychain.Key<String>("token")
            #expect(try keychain.get(launches) == 0)
            #expect(throws: KeychainError.itemNotFound) { try keychain.require(token) }
            try keychain.set(3, for: launches)
            #expect(keychain[launches] == 3)
            keychain[token] = "abc"
            #expect(try keychain.result(for: token).get() == "abc")
            #expect(try keychain.result("token", as: String.self).get() == "abc")
            try keychain.set(nil, for: token)
            #expect(try keychain.contains("token") == false)
        }
    }

    @Test func propertyWrapper_readsWritesAndRemoves() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "wrapped", vault: vault)
            struct Settings {
                @KeychainStored<Int?> var count: Int?
                @KeychainStored<String?> var name: String?
            }
            let settings = Settings(
                count: KeychainStored("count", default: 1, keychain: keychain),
                name: KeychainStored("name", keychain: keychain)
            )
            #expect(settings.count == 1)
            #expect(settings.name == nil)
            settings.count = 5
            settings.name = "n"
            #expect(try keychain.get("count", as: Int.self) == 5)
            #expect(try settings.$name.get() == "n")
            settings.name = nil
            #expect(try keychain.contains("name") == false)
        }
    }
}
