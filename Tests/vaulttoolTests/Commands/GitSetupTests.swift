// vaulttool tests: `git-setup` quotes a credential path for git's shell and its placeholders.
// Found by the security review of recipients (format 1.2) and git-diff.

import Foundation
import Testing

@Suite("git-setup quoting")
struct GitSetupTests {
    typealias Git = CredentialHelperIntegrationTests

    /// A credential path with shell syntax and a '%' placeholder: one quoted word for git's shell
    /// in both drivers, never run as a command, and '%' doubled where git expands placeholders.
    @Test(.enabled(if: Git.hasGit)) func gitSetup_pathWithShellSyntaxAndPercent_isOneWordForGit() throws {
        let w = try Workspace()
        try GitDriverTests.committedVault(w)
        let name = "p;$(touch pwned)`touch pwned2` 100%A"
        try w.write(name, Workspace.password + "\n")
        try w.write(".git/info/exclude", "pw\n\(name)\n.state/\nhome/\nrun/\n")
        let setup = try w.run(["git-setup", "--password-file", name])
        #expect(setup.status == 0, "\(setup.stderr)")
        let textconv = try GitDriverTests.git(["config", "--get", "diff.vault.textconv"], in: w).stdout
        #expect(textconv.hasSuffix(" git-diff --password-file '\(w.file(name))'\n"), "\(textconv)")
        let merge = try GitDriverTests.git(["config", "--get", "merge.vault.driver"], in: w).stdout
        let doubled = w.file(name).replacingOccurrences(of: "%", with: "%%")
        #expect(merge.hasSuffix(" git-merge --password-file '\(doubled)' %O %A %B %P\n"), "\(merge)")
        try w.set("NEW-db-Secret-3333", ["--service", "db", "--account", "app"])
        let diff = try GitDriverTests.git(["diff"], in: w).stdout
        #expect(diff.contains("+  secret: fingerprint "), "\(diff)")
        #expect(!FileManager.default.fileExists(atPath: w.file("pwned")))
        #expect(!FileManager.default.fileExists(atPath: w.file("pwned2")))
    }
}
