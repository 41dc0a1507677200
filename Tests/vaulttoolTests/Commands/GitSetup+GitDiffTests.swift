// vaulttool tests: git-setup and the git-diff textconv driver, with real git.

import Foundation
import Testing

@Suite("git-setup and git-diff with real git")
struct GitDriverTests {
    typealias Git = CredentialHelperIntegrationTests

    /// Runs git in the workspace with a clean environment (no agent, no device secret).
    @discardableResult
    static func git(_ arguments: [String], in w: Workspace) throws -> RunResult {
        let result = try Git.git(arguments, in: w)
        #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    static func commit(_ message: String, in w: Workspace) throws {
        try git(["add", "-A"], in: w)
        try git(["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message], in: w)
    }

    static func text(_ w: Workspace, _ name: String) -> String {
        (try? String(contentsOfFile: w.file(name), encoding: .utf8)) ?? ""
    }

    // MARK: - git-setup

    @Test(.enabled(if: Git.hasGit)) func gitSetup_freshRepo_writesFilesAndConfig_andIsIdempotent() throws {
        let w = try Workspace()
        try Self.git(["init", "-q"], in: w)
        // Existing lines are kept, including a last line without a newline.
        try w.write(".gitattributes", "*.png binary")
        try w.write(".gitignore", "build/\n")
        let first = try w.run(["git-setup", "--repo", w.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains(".gitattributes: *.vault -text merge=vault diff=vault"))
        #expect(Self.text(w, ".gitattributes") == "*.png binary\n*.vault -text merge=vault diff=vault\n")
        #expect(Self.text(w, ".gitignore") == "build/\n*.vault.lock\n.*.vault.tmp-*\n*.vault.backup-*\n")
        func config(_ key: String) throws -> String {
            try Self.git(["config", "--local", "--get", key], in: w).stdout
        }
        #expect(try config("merge.vault.driver").hasSuffix(" git-merge %O %A %B %P\n"))
        #expect(try config("diff.vault.textconv").hasSuffix(" git-diff\n"))
        #expect(try config("diff.vault.textconv").hasPrefix("/"))
        #expect(try config("diff.vault.cachetextconv") == "false\n")
        #expect(try !config("merge.vault.name").isEmpty)

        // A second run changes nothing and says so.
        let attributes = Self.text(w, ".gitattributes")
        let ignore = Self.text(w, ".gitignore")
        let again = try w.run(["git-setup", "--repo", w.path])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing changed"))
        #expect(Self.text(w, ".gitattributes") == attributes && Self.text(w, ".gitignore") == ignore)

        // --use-path writes plain `vaulttool`; a pattern under a folder gets its own lines.
        let path = try w.run(["git-setup", "--use-path", "--repo", w.path, "secrets/*.vault", "prod.kc"])
        #expect(path.status == 0, "\(path.stderr)")
        #expect(try config("diff.vault.textconv") == "vaulttool git-diff\n")
        #expect(
            Self.text(w, ".gitattributes").hasSuffix(
                "secrets/*.vault -text merge=vault diff=vault\nprod.kc -text merge=vault diff=vault\n"
            )
        )
        #expect(
            Self.text(w, ".gitignore").hasSuffix(
                "secrets/*.vault.lock\nsecrets/.*.vault.tmp-*\nsecrets/*.vault.backup-*\nprod.kc.lock\n"
                    + ".prod.kc.tmp-*\nprod.kc.backup-*\n"
            )
        )
    }

    @Test(.enabled(if: Git.hasGit)) func gitSetup_dryRun_changesNothing_andCredentialPathsBecomeAbsolute() throws {
        let w = try Workspace()
        try Self.git(["init", "-q"], in: w)
        let dry = try w.run(["git-setup", "--dry-run", "--password-file", "pw"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.hasPrefix("Would change in "))
        #expect(dry.stdout.contains("git-diff --password-file \(w.file("pw"))"))
        #expect(!FileManager.default.fileExists(atPath: w.file(".gitattributes")))
        #expect(!FileManager.default.fileExists(atPath: w.file(".gitignore")))
        #expect(try Git.git(["config", "--local", "--get", "diff.vault.textconv"], in: w).status == 1)
        // Never the password itself: only the file's path is written.
        #expect(!dry.stdout.contains(Workspace.password))
    }

    @Test(.enabled(if: Git.hasGit)) func gitSetup_outsideARepository_failsWithoutWriting() throws {
        let w = try Workspace()
        let result = try w.run(["git-setup", "--repo", w.path], environment: ["GIT_CEILING_DIRECTORIES": w.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is not inside a git repository"))
        #expect(!FileManager.default.fileExists(atPath: w.file(".gitattributes")))
    }

    // MARK: - git diff through the textconv driver

    /// A repository set up with the password file, holding a committed vault with two items.
    static func committedVault(_ w: Workspace) throws {
        try git(["init", "-q"], in: w)
        // The workspace's own files (password, rollback state, git's HOME, the agent) stay out.
        try w.write(".git/info/exclude", "pw\n.state/\nhome/\nrun/\n")
        let setup = try w.run(["git-setup", "--password-file", "pw"])
        #expect(setup.status == 0, "\(setup.stderr)")
        try w.makeVault()
        try w.set("OLD-db-Secret-1111", ["--service", "db", "--account", "app"])
        try w.set("OLD-ci-Secret-2222", ["--server", "github.com", "--account", "old-bot"])
        try commit("vault", in: w)
    }

    /// Spec/cli.md R-GD-1, R-GD-3: item-level changes, secrets only as fingerprints.
    @Test(.enabled(if: Git.hasGit)) func gitDiff_showsAccountAndSecretChanges_neverTheSecrets() throws {
        let w = try Workspace()
        try Self.committedVault(w)
        // Change one item's secret and label, and move the other to a new account.
        try w.set("NEW-db-Secret-3333", ["--service", "db", "--account", "app", "--label", "Database"])
        #expect(
            try w.run(["rm", "--password-file", "pw", "--server", "github.com", "--account", "old-bot", "v.vault"])
                .status == 0
        )
        try w.set("NEW-ci-Secret-4444", ["--server", "github.com", "--account", "new-bot"])

        let diff = try Self.git(["diff"], in: w).stdout
        #expect(diff.contains("+  account: \"new-bot\""), "\(diff)")
        #expect(diff.contains("-  account: \"old-bot\""))
        #expect(diff.contains("+  label: \"Database\""))
        #expect(diff.contains("-generation: 3") && diff.contains("+generation: 6"))
        #expect(diff.contains("+deleted "))
        let removed = diff.split(separator: "\n").filter { $0.hasPrefix("-  secret: fingerprint ") }
        let added = diff.split(separator: "\n").filter { $0.hasPrefix("+  secret: fingerprint ") }
        #expect(removed.count == 2 && added.count == 2, "\(diff)")

        try Self.commit("change", in: w)
        let log = try Self.git(["log", "-p"], in: w).stdout
        #expect(log.contains("+  account: \"new-bot\""))
        for output in [diff, log] {
            for secret in ["OLD-db-Secret-1111", "OLD-ci-Secret-2222", "NEW-db-Secret-3333", "NEW-ci-Secret-4444"] {
                #expect(!output.contains(secret))
                #expect(!output.contains(Data(secret.utf8).base64EncodedString()))
            }
        }
    }

    /// Spec/cli.md R-GD-4: without a credential, the header facts and exit status 0.
    @Test(.enabled(if: Git.hasGit)) func gitDiff_withoutCredentials_stillShowsHeaderChanges() throws {
        let w = try Workspace()
        try Self.committedVault(w)
        // The drivers now run with no credential at all.
        #expect(try w.run(["git-setup"]).status == 0)
        try w.set("NEW-db-Secret-3333", ["--service", "db", "--account", "app"])
        let diff = try Self.git(["diff", "--unified=100"], in: w)
        #expect(diff.status == 0)
        #expect(diff.stdout.contains("-generation: 3\n+generation: 4"), "\(diff.stdout)")
        #expect(diff.stdout.contains(" header: not authenticated (no key)"))
        // Format 3 counts items in its encrypted root: without a key there is no count to show.
        #expect(!diff.stdout.contains("items: "))
        #expect(diff.stdout.contains(" items locked: no credential"))
        #expect(!diff.stdout.contains("account"))
        #expect(!diff.stdout.contains("NEW-db-Secret-3333"))
    }

    // MARK: - git-diff on its own

    /// Spec/cli.md R-GD-2, R-GD-4: never a prompt, never a failing exit status for a readable file.
    @Test func gitDiff_wrongPasswordOrNotAVault_exitsZeroAndSaysWhy() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("wrong", "not the password\n")
        let wrong = try w.run(["git-diff", "--password-file", "wrong", "v.vault"])
        #expect(wrong.status == 0)
        #expect(wrong.stdout.contains("items locked: wrong password or key file"), "\(wrong.stdout)")
        try w.write("other.vault", "hello, not a vault\n")
        let foreign = try w.run(["git-diff", "other.vault"])
        #expect(foreign.status == 0)
        #expect(foreign.stdout.hasPrefix("vault file: unreadable header: "), "\(foreign.stdout)")
        // Nothing is ever prompted for, not even with a terminal.
        let none = try w.run(["git-diff", "v.vault"])
        #expect(none.status == 0 && none.stdout.contains("items locked: no credential"))
    }

    /// Spec/cli.md R-GD-1, R-GD-3.
    @Test func gitDiff_itemsSortedByID_valuesQuoted_fingerprintFollowsTheSecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s1", ["--service", "b", "--account", "x", "--label", "two\nlines"])
        try w.set("s2", ["--service", "a", "--account", "y"])
        let first = try w.run(["git-diff", "--password-file", "pw", "v.vault"])
        #expect(first.status == 0)
        let ids = first.stdout.split(separator: "\n").filter { $0.hasPrefix("item ") }
        #expect(ids.count == 2 && ids == ids.sorted())
        #expect(first.stdout.contains("  label: \"two\\nlines\"\n"))
        // The same vault, unchanged: the same text.
        #expect(try w.run(["git-diff", "--password-file", "pw", "v.vault"]).stdout == first.stdout)
        // The same secret set again: only version and dates move, the fingerprint stays.
        try w.set("s2", ["--service", "a", "--account", "y"])
        let prints = { (text: String) in text.split(separator: "\n").filter { $0.contains("fingerprint") } }
        #expect(prints(try w.run(["git-diff", "--password-file", "pw", "v.vault"]).stdout) == prints(first.stdout))
    }

    /// Spec/cli.md R-GD-2: the agent's keys, found by vault ID for git's temporary copies.
    @Test(.enabled(if: Git.hasGit)) func gitDiff_agentHoldingTheVault_opensOldVersionsToo() throws {
        let w = try Workspace()
        try Self.committedVault(w)
        #expect(try w.run(["git-setup"]).status == 0)
        try w.set("NEW-db-Secret-3333", ["--service", "db", "--account", "app"])
        let agent = try AgentCommandTests.RunningAgent(in: w)
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        let diff = try Git.git(["diff"], in: w, environment: agent.environment)
        #expect(diff.status == 0)
        // Both sides opened: git hands the committed side over as a temporary file.
        #expect(
            diff.stdout.contains("-  secret: fingerprint ") && diff.stdout.contains("+  secret: fingerprint "),
            "\(diff.stdout)"
        )
        #expect(!diff.stdout.contains("items locked"))
    }

    /// Spec/cli.md R-GD-4: items the keys cannot read are listed with the reason.
    @Test func gitDiff_itemsOfThisOrAnotherDevice_areListedAsUnreadable() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(try w.run(["device-secret", "init", "ds"]).status == 0)
        #expect(try w.run(["device-secret", "init", "other"]).status == 0)
        try w.set(
            "device-only",
            [
                "--service", "db", "--account", "here", "--accessibility", "whenUnlockedThisDeviceOnly",
                "--device-secret-file", "ds",
            ]
        )
        try w.set("shared", ["--service", "db", "--account", "everywhere"])
        func view(_ extra: [String]) throws -> String {
            let result = try w.run(["git-diff", "--password-file", "pw"] + extra + ["v.vault"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let noSecret = try view([])
        #expect(noSecret.contains("  unreadable here: whenUnlockedThisDeviceOnly needs this machine's device secret\n"))
        #expect(noSecret.contains("  account: \"everywhere\""))
        #expect(!noSecret.contains("\"here\""))
        let other = try view(["--device-secret-file", "other"])
        #expect(other.contains("  unreadable here: another device's item\n"), "\(other)")
        let own = try view(["--device-secret-file", "ds"])
        #expect(own.contains("  account: \"here\"") && !own.contains("unreadable here"))
    }

    @Test(.enabled(if: Git.hasGit)) func gitSetup_pathsWithSpaces_areQuotedForTheShellGitUses() throws {
        let w = try Workspace()
        try Self.committedVault(w)
        try w.write("my pw", Workspace.password + "\n")
        try w.write(".git/info/exclude", "pw\nmy pw\n.state/\nhome/\nrun/\n")
        let setup = try w.run(["git-setup", "--password-file", "my pw"])
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(
            try Self.git(["config", "--get", "diff.vault.textconv"], in: w).stdout.hasSuffix(
                " git-diff --password-file '\(w.file("my pw"))'\n"
            )
        )
        try w.set("NEW-db-Secret-3333", ["--service", "db", "--account", "app"])
        let diff = try Self.git(["diff"], in: w).stdout
        #expect(diff.contains("+  secret: fingerprint "), "\(diff)")
    }

    /// A repository that marks every file as text with CRLF endings must still check a vault out byte for byte.
    @Test(.enabled(if: Git.hasGit)) func gitSetup_keepsLineEndingConversionAwayFromVaults() throws {
        let w = try Workspace()
        try Self.git(["init", "-q"], in: w)
        try w.write(".git/info/exclude", "pw\n.state/\nhome/\nrun/\n")
        try w.write(".gitattributes", "* text eol=crlf\n")
        #expect(try w.run(["git-setup"]).status == 0)
        try w.makeVault()
        for index in 0..<20 { try w.set("secret \(index)\n", ["--service", "s\(index)", "--account", "a"]) }
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        #expect(before.contains(0x0A), "the test needs a vault holding a LF byte")
        try Self.commit("vault", in: w)
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try Self.git(["checkout", "--", "v.vault"], in: w)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }
}

@Suite(
    "git-merge through git-setup: the agent and the file's name",
    .enabled(if: CredentialHelperIntegrationTests.hasGit)
)
struct GitMergeSetupTests {
    typealias Git = CredentialHelperIntegrationTests

    /// A committed vault with git-setup's drivers, an agent, and a branch `feature` that added the
    /// item `feature`; trunk is checked out again.
    private struct Repository {
        let w: Workspace
        let agent: AgentCommandTests.RunningAgent
        let trunk: String

        init() throws {
            w = try Workspace()
            try GitDriverTests.committedVault(w)
            #expect(try w.run(["git-setup"]).status == 0)
            let agent = try AgentCommandTests.RunningAgent(in: w)
            self.agent = agent
            let git = { [w] (arguments: [String]) in try Self.git(arguments, in: w, agent: agent) }
            trunk = try git(["rev-parse", "--abbrev-ref", "HEAD"]).stdout.trimmingCharacters(in: .newlines)
            #expect(try git(["checkout", "-q", "-b", "feature"]).status == 0)
            try w.set("feature", ["--service", "feature", "--account", "a"])
            #expect(try git(["commit", "-q", "-am", "feature"]).status == 0)
            #expect(try git(["checkout", "-q", trunk]).status == 0)
        }

        /// git in the workspace, with the agent and a committer identity.
        func git(_ arguments: [String]) throws -> RunResult { try Self.git(arguments, in: w, agent: agent) }

        private static func git(
            _ arguments: [String],
            in w: Workspace,
            agent: AgentCommandTests.RunningAgent
        ) throws -> RunResult {
            let identity = [
                "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.org",
            ]
            return try Git.git(arguments, in: w, environment: agent.environment.merging(identity) { $1 })
        }

        /// `vaulttool unlock` of the vault in the agent.
        func unlock() throws -> Int32 {
            try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status
        }
    }

    /// Before, with `vaulttool unlock` and no credential in git-setup, `git merge` ended in a binary
    /// `CONFLICT (content)`, and messages named git's `.merge_file_*` copies. The driver now asks
    /// the agent by vault ID, as git-diff does, and names the file git names (%P).
    @Test func gitMerge_usesTheAgent_andNamesTheFile() throws {
        let repository = try Repository()
        let w = repository.w
        #expect(try repository.unlock() == 0)
        try w.set("main", ["--service", "main", "--account", "a"])
        #expect(try repository.git(["commit", "-q", "-am", "main"]).status == 0)
        let merge = try repository.git(["merge", "--no-edit", "feature"])
        #expect(merge.status == 0, "\(merge.stdout) \(merge.stderr)")
        #expect(merge.stderr.contains("merged v.vault (their side) into v.vault:"), "\(merge.stderr)")
        #expect(!merge.stderr.contains(".merge_file_"))
        for service in ["feature", "main"] {
            let get = try w.run(["get", "--password-file", "pw", "--service", service, "--account", "a", "v.vault"])
            #expect(get.stdout == service, "\(get.stderr)")
        }
    }

    /// The agent holds the keys of trunk, which was re-keyed; the feature branch is still under
    /// the old master key. Merging trunk into it is a missing credential (exit 3) naming our file,
    /// not damage (it was exit 4, "damaged or was tampered with", before GitMergeDriver).
    @Test func gitMerge_intoABranchTheAgentsKeysDoNotOpen_asksForACredential() throws {
        let repository = try Repository()
        let (w, agent, trunk) = (repository.w, repository.agent, repository.trunk)
        func git(_ arguments: [String]) throws -> RunResult { try repository.git(arguments) }
        #expect(try repository.unlock() == 0)
        let rekey = try w.run(["rekey", "--password-file", "pw", "v.vault"], environment: agent.environment)
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(try git(["commit", "-q", "-am", "rekey"]).status == 0)
        #expect(try git(["checkout", "-q", "feature"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let merge = try git(["merge", "--no-edit", trunk])
        #expect(merge.status != 0)
        #expect(
            merge.stderr.contains(
                "Error: The agent's keys do not open our 'v.vault' (re-keyed on one branch?); give the driver a "
                    + "credential (VAULTTOOL_PASSWORD_FILE)"
            ),
            "\(merge.stderr)"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before, "ours is untouched")
    }
}
