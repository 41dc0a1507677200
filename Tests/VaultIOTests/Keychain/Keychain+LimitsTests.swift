// vault: keys and services longer than the format allows (R-LIM-1).
// Found by the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Keychain: over-long keys")
struct KeychainLimitsTests {
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
}
