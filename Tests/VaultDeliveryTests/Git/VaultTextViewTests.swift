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

@Suite("VaultTextView, opening a file git hands over")
struct VaultTextViewOpeningTests {
    /// The view of a scratch vault holding one item, whose password is `test`.
    private func view(password: String?, credentialNamed: Bool) throws -> String {
        let scratch = try ScratchVault([("db", "app", Array("s3cr3t".utf8))])
        defer { scratch.remove() }
        return try VaultTextView.text(
            ofFileAt: scratch.vault.path,
            sources: CredentialSources(password: try password.map { .file(try scratch.file("pw", $0)) }),
            credentialNamed: credentialNamed,
            agent: nil,
            describe: { error in error is VaultFormatError ? "wrong password" : "\(error)" }
        )
    }

    @Test func text_withTheCredentialNamed_showsTheItems() throws {
        let text = try view(password: "test", credentialNamed: true)
        #expect(text.contains("header: authenticated\n"))
        #expect(text.contains("  service: \"db\"\n"))
        #expect(!text.contains("s3cr3t"))
    }

    @Test func text_withAWrongCredential_isLockedWithTheReason() throws {
        let text = try view(password: "wrong", credentialNamed: true)
        #expect(text.hasSuffix("\nitems locked: wrong password\n"))
        #expect(!text.contains("service:"))
    }

    @Test func text_withoutAnyCredential_namesTheWaysToGiveOne() throws {
        let text = try view(password: nil, credentialNamed: false)
        #expect(text.contains("header: not authenticated (no key)\n"))
        #expect(
            text.hasSuffix(
                "\nitems locked: no credential (give git-diff a credential option in diff.vault.textconv, "
                    + "or 'vaulttool unlock' the vault in an agent)\n"
            )
        )
    }

    @Test func text_ofAFileThatIsNotAVault_isOneLineNotAnError() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        let path = try scratch.file("notes.txt", "not a vault at all, but long enough to have a header's size or more")
        let text = try VaultTextView.text(
            ofFileAt: path,
            sources: CredentialSources(),
            credentialNamed: false,
            agent: nil,
            describe: { _ in "not a vault" }
        )
        #expect(text == "vault file: unreadable header: not a vault\n")
    }
}
