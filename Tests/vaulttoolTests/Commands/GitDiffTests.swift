// vaulttool tests: the `git-diff` view: escaped attributes and the recipients line (R-GD-1).
// Found by the security review of recipients (format 1.2) and git-diff.

import Foundation
import Testing

@Suite("git-diff view")
struct GitDiffTests {
    /// R-GD-1: a bidirectional override in an attribute is escaped in the view, so a crafted label
    /// cannot make its line (or the next) display reordered in a terminal or a review UI.
    @Test func bidiControlsInAttributes_areEscaped() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        let label = "deploy\u{202E}txt.exe\u{2066}x\u{2069}"
        let set = try w.set("s3cret", ["--service", "db", "--account", "app", "--label", label])
        #expect(set.status == 0, "\(set.stderr)")
        let view = try w.run(["git-diff", "--password-file", "pw", "v.vault"])
        #expect(view.status == 0, "\(view.stderr)")
        #expect(view.stdout.contains(#"  label: "deploy\u202etxt.exe\u2066x\u2069""#), "\(view.stdout)")
        #expect(
            !view.stdout.unicodeScalars.contains {
                (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
            }
        )
        #expect(!view.stdout.contains("s3cret"))
    }

    /// R-GD-1: a commit that adds a recipient (full read access to every later generation) is
    /// visible in the view: the count without a key, and key and name with the master key.
    @Test func addedRecipient_showsInTheView() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        let migrate = try w.run(["migrate", "--to", "1.2", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let before = try w.run(["git-diff", "--password-file", "pw", "v.vault"])
        #expect(before.stdout.contains("keyslots: 1\n  #0 password master argon2id"), "\(before.stdout)")
        #expect(before.stdout.contains("\nrecipients: 0\nitems: 0\n"), "\(before.stdout)")
        let key = try w.run(["keygen", "eve.id"]).stdout.trimmingCharacters(in: .newlines)
        let added = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", key, "--name", "eve\u{202E}", "v.vault",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let after = try w.run(["git-diff", "--password-file", "pw", "v.vault"])
        #expect(after.stdout.contains("\nrecipients: 1\n  \(key) \"eve\\u202e\"\nitems: 0\n"), "\(after.stdout)")
        let locked = try w.run(["git-diff", "v.vault"])
        #expect(locked.status == 0)
        #expect(locked.stdout.contains("\nrecipients: 1\nitems: 0\n"), "\(locked.stdout)")
        #expect(!locked.stdout.contains(key))
        // Opened by the identity (master key): the same lines.
        let byIdentity = try w.run(["git-diff", "--identity", "eve.id", "v.vault"])
        #expect(
            byIdentity.stdout.contains(
                "\nheader: authenticated by a recipient identity (anyone with its public key can write such a file)\n"
            ),
            "\(byIdentity.stdout)"
        )
        #expect(after.stdout.contains("\nheader: authenticated\n"), "a password's MAC check stays plain")
        #expect(byIdentity.stdout.contains("\nrecipients: 1\n  \(key) \"eve\\u202e\"\n"), "\(byIdentity.stdout)")
    }

    /// Views of a 1.1 file do not change (no recipients line).
    @Test func version11View_hasNoRecipientsLine() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        let view = try w.run(["git-diff", "--password-file", "pw", "v.vault"])
        #expect(!view.stdout.contains("recipients"))
    }
}
