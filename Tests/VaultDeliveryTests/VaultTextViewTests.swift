// VaultDelivery tests: git-diff's text view never shows a secret, and an attribute cannot forge a line.

import Testing
import VaultDelivery
import VaultIO

@Suite("VaultTextView")
struct VaultTextViewTests {
    @Test func opened_showsItemsByIDWithAFingerprintNotTheSecret() throws {
        let scratch = try ScratchVault([("db", "app\nitem 0000 forged", Array("s3cr3t".utf8))])
        defer { scratch.remove() }
        let text = VaultTextView.opened(try scratch.snapshot()) { "\($0)" }
        #expect(text.hasPrefix("vault 3.0\n"), "new vaults are format 3")
        #expect(text.contains("items: 1\n"), "with a key, format 3's counts show")
        #expect(text.contains("header: authenticated\n"))
        #expect(text.contains("  service: \"db\"\n"))
        #expect(text.contains("  account: \"app\\nitem 0000 forged\"\n"))
        #expect(text.contains("  secret: fingerprint "))
        #expect(!text.contains("s3cr3t"))
    }

    @Test func locked_givesTheHeaderAndTheReason() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let text = VaultTextView.locked(try scratch.snapshot().header, .init(reason: "no credential"))
        #expect(text.contains("header: not authenticated (no key)\n"))
        #expect(text.hasSuffix("\nitems locked: no credential\n"))
    }
}
