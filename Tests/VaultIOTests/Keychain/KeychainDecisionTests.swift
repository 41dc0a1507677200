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
}
