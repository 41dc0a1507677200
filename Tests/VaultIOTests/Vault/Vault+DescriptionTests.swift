// vault: what a Vault shows of itself when interpolated into a string.
// Found by the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Vault: description")
struct VaultDescriptionTests {
    /// String interpolation of a Vault shows its path and state, not its items.
    @Test func interpolatedVault_showsNoAttributes() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "mybank.example", account: "alice@corp")) }
            let text = "\(vault)"
            #expect(text.contains("unlocked") && !text.contains("mybank") && !text.contains("alice"))
        }
    }
}
