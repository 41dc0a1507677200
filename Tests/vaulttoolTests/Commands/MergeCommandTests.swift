// vaulttool tests: `merge` and `git-merge`, with sync conflict files and with real git.

import Foundation
import Testing

/// `vaulttool get` of service `service` (account "a"), or `nil` when absent.
private func secret(_ w: Workspace, _ service: String, vault: String = "v.vault") throws -> String? {
    let result = try w.run(["get", "--password-file", "pw", "--service", service, "--account", "a", vault])
    return result.status == 0 ? result.stdout : nil
}

/// The services of every item of `vault`, with their accounts.
private func listing(_ w: Workspace, vault: String = "v.vault") throws -> String {
    let result = try w.run(["list", "--password-file", "pw", vault])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout
}

@Suite("merge command")
struct MergeCommandTests {
    @Test func syncConflictFile_isMergedIn_conflictListed_andRemoved() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("one", ["--service", "shared", "--account", "a"])
        let conflictName = "v.sync-conflict-20261201-101500-ABCDEFG.vault"
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file(conflictName))
        try w.set("ours only", ["--service", "mine", "--account", "a"])
        try w.set("edited here", ["--service", "shared", "--account", "a"])
        // The copy was changed on another machine, which keeps its own rollback record.
        let elsewhere = ["XDG_STATE_HOME": w.file(".other-machine")]
        for (service, value) in [("theirs", "theirs only"), ("shared", "edited there")] {
            let set = try w.run(
                ["set", "--password-file", "pw", "--service", service, "--account", "a", conflictName],
                stdin: value,
                environment: elsewhere
            )
            #expect(set.status == 0, "\(set.stderr)")
        }

        let merge = try w.run(["merge", "--password-file", "pw", "--remove-merged", "v.vault", conflictName])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout.contains("conflict: ") && merge.stdout.contains("changed in both shared/a: kept"))
        #expect(merge.stdout.contains("merged \(conflictName) into v.vault: 1 added"))
        #expect(merge.stdout.contains("removed \(conflictName)"))
        #expect(!FileManager.default.fileExists(atPath: w.file(conflictName)))
        #expect(try secret(w, "mine") == "ours only")
        #expect(try secret(w, "theirs") == "theirs only")
        #expect(try secret(w, "shared") == "edited there")  // set later, so newer
        let list = try listing(w)
        #expect(list.contains("a (conflict "))
        #expect(!merge.stdout.contains("edited"), "no secret is printed")
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }

    @Test func output_writesANewFile_andLeavesBothInputs() throws {
        let w = try Workspace()
        try w.makeVault()
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("base.vault"))
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("theirs.vault"))
        try w.set("x", ["--service", "ours", "--account", "a"])
        try w.set("y", ["--service", "theirs", "--account", "a"], vault: "theirs.vault")
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let merge = try w.run([
            "merge", "--password-file", "pw", "--base", "base.vault", "--output", "m.vault", "v.vault", "theirs.vault",
        ])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        #expect(try secret(w, "ours", vault: "m.vault") == "x")
        #expect(try secret(w, "theirs", vault: "m.vault") == "y")
        let again = try w.run(["merge", "--password-file", "pw", "--output", "m.vault", "v.vault", "theirs.vault"])
        #expect(again.status != 0)
    }

    @Test func rekeyedCopy_needsKeepKey() throws {
        let w = try Workspace()
        try w.makeVault()
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("copy.vault"))
        let elsewhere = ["XDG_STATE_HOME": w.file(".other-machine")]
        #expect(try w.run(["rekey", "--password-file", "pw", "copy.vault"], environment: elsewhere).status == 0)
        let refused = try w.run(["merge", "--password-file", "pw", "v.vault", "copy.vault"])
        #expect(refused.status == 1 && refused.stderr.contains("--keep-key theirs"))
        let merged = try w.run(["merge", "--password-file", "pw", "--keep-key", "theirs", "v.vault", "copy.vault"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let copyHeader = try w.run(["inspect", "--json", "copy.vault"]).json()
        let mergedHeader = try w.run(["inspect", "--json", "v.vault"]).json()
        #expect((mergedHeader["keyslots"] as? [Any])?.count == (copyHeader["keyslots"] as? [Any])?.count)
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
        #expect(
            try w.run(["merge", "--password-file", "pw", "--keep-key", "mine", "v.vault", "copy.vault"]).status == 64
        )
    }

    @Test func gitMerge_emptyAncestorMergesTwoWay_andAFailureLeavesOursAlone() throws {
        let w = try Workspace()
        try w.makeVault()
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("theirs.vault"))
        try w.set("x", ["--service", "ours", "--account", "a"])
        try w.set("y", ["--service", "theirs", "--account", "a"], vault: "theirs.vault")
        try w.write("empty", "")
        let environment = ["VAULTTOOL_PASSWORD_FILE": w.file("pw")]
        let merged = try w.run(["git-merge", "empty", "v.vault", "theirs.vault"], environment: environment)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.isEmpty && merged.stderr.contains("merged theirs.vault into v.vault: 1 added"))
        #expect(try secret(w, "theirs") == "y")

        try w.makeVault("other.vault")
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let refused = try w.run(["git-merge", "empty", "v.vault", "other.vault"], environment: environment)
        #expect(refused.status == 1 && refused.stderr.hasPrefix("Error: "))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        let wrong = try w.run(
            ["git-merge", "empty", "v.vault", "theirs.vault"],
            environment: ["VAULTTOOL_PASSWORD_FILE": w.file("empty")]
        )
        #expect(wrong.status != 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
    }

    @Test func differentVaults_refuse() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.makeVault("other.vault")
        let merge = try w.run(["merge", "--password-file", "pw", "v.vault", "other.vault"])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("holds a different vault"))
    }

    @Test func usageErrors() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(try w.run(["merge", "--password-file", "pw", "--base", "b", "v.vault", "x", "y"]).status == 64)
        #expect(
            try w.run(["merge", "--password-file", "pw", "--output", "o", "--remove-merged", "v.vault", "x"]).status
                == 64
        )
        #expect(try w.run(["merge", "--password-file", "pw", "v.vault"]).status == 64)
        #expect(try w.run(["git-merge", "a", "b"]).status == 64)
        let noCredentials = try w.run(["git-merge", "v.vault", "v.vault", "v.vault"])
        #expect(noCredentials.status == 64 && noCredentials.stderr.contains("VAULTTOOL_PASSWORD_FILE"))
    }
}

@Suite("git merge driver", .enabled(if: CredentialHelperIntegrationTests.hasGit))
struct GitMergeDriverTests {
    func git(_ w: Workspace, _ arguments: [String]) throws -> RunResult {
        let result = try CredentialHelperIntegrationTests.git(
            arguments,
            in: w,
            environment: [
                "VAULTTOOL_PASSWORD_FILE": w.file("pw"), "XDG_STATE_HOME": w.file(".state"),
                "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.org",
            ]
        )
        #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stdout) \(result.stderr)")
        return result
    }

    /// A repository with the driver configured by hand: `main` and `feature` both add, edit and
    /// delete items, and both edit `shared`.
    func repository() throws -> Workspace {
        let w = try Workspace()
        try FileManager.default.createDirectory(atPath: w.file("home"), withIntermediateDirectories: true)
        _ = try git(w, ["init", "-q", "-b", "main"])
        _ = try git(w, ["config", "merge.vault.name", "vault merge"])
        _ = try git(w, ["config", "merge.vault.driver", "\(Tool.path) git-merge %O %A %B"])
        try w.write(".gitattributes", "*.vault merge=vault -diff\n")
        try w.write(".gitignore", "pw\n*.lock\n.state/\nhome/\n")
        try w.makeVault()
        for service in ["shared", "keep", "gone", "edit-main"] {
            try w.set("base \(service)", ["--service", service, "--account", "a"])
        }
        _ = try git(w, ["add", "."])
        _ = try git(w, ["commit", "-q", "-m", "base"])
        _ = try git(w, ["checkout", "-q", "-b", "feature"])
        try w.set("feature add", ["--service", "feature-new", "--account", "a"])
        try w.set("feature edit", ["--service", "shared", "--account", "a"])
        #expect(
            try w.run(["rm", "--password-file", "pw", "--service", "gone", "--account", "a", "v.vault"]).status == 0
        )
        _ = try git(w, ["commit", "-q", "-am", "feature"])
        _ = try git(w, ["checkout", "-q", "main"])
        // The checkout put an older generation back: a fork under the same key, written as usual.
        let older = ["--account", "a"]
        try w.set("main add", ["--service", "main-new"] + older)
        try w.set("main edit", ["--service", "edit-main"] + older)
        try w.set("main edit of shared", ["--service", "shared"] + older)
        _ = try git(w, ["commit", "-q", "-am", "main"])
        return w
    }

    func expectUnion(_ w: Workspace, sharedWinner: String, sharedLoser: String) throws {
        #expect(try secret(w, "feature-new") == "feature add")
        #expect(try secret(w, "main-new") == "main add")
        #expect(try secret(w, "edit-main") == "main edit")
        #expect(try secret(w, "keep") == "base keep")
        #expect(try secret(w, "gone") == nil)
        #expect(try secret(w, "shared") == sharedWinner)
        let list = try listing(w)
        let copy = try #require(list.split(separator: "\n").first { $0.contains("a (conflict ") })
        #expect(copy.contains("shared"))
        let copyAccount = String(copy[copy.range(of: "a (conflict ")!.lowerBound...].prefix(while: { $0 != ")" })) + ")"
        let loser = try w.run([
            "get", "--password-file", "pw", "--service", "shared", "--account", copyAccount, "v.vault",
        ])
        #expect(loser.stdout == sharedLoser)
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }

    @Test func gitMerge_usesTheDriver_andHoldsTheUnion() throws {
        let w = try repository()
        let merge = try git(w, ["merge", "-q", "--no-edit", "feature"])
        #expect(merge.stdout.contains("<<<<<<<") == false && merge.stderr.contains("CONFLICT") == false)
        #expect(try git(w, ["diff", "--name-only", "--diff-filter=U"]).stdout.isEmpty)
        #expect(try git(w, ["status", "--porcelain", "--untracked-files=no"]).stdout.isEmpty)
        // main's edit of "shared" was made later, so it keeps the item; feature's is the copy.
        try expectUnion(w, sharedWinner: "main edit of shared", sharedLoser: "feature edit")
    }

    @Test func gitRebase_usesTheDriver_andHoldsTheUnion() throws {
        let w = try repository()
        _ = try git(w, ["rebase", "-q", "feature"])
        #expect(try git(w, ["status", "--porcelain", "--untracked-files=no"]).stdout.isEmpty)
        try expectUnion(w, sharedWinner: "main edit of shared", sharedLoser: "feature edit")
    }
}

@Suite("git merge driver: an older copy committed on a branch", .enabled(if: CredentialHelperIntegrationTests.hasGit))
struct GitOldCopyMergeTests {
    let driver = GitMergeDriverTests()

    /// The security review's attack (R-MRG-17): someone with push access and no vault credential
    /// commits an old copy on a branch (`git checkout <old> -- v.vault`); the owner's branch also
    /// changed the vault, so `git merge` runs the driver three-way. Before, the merge reverted the
    /// rotated secret and dropped the item added since; now the driver refuses and git stops.
    @Test func oldCopyOnABranch_isRefused_andTheOwnersVaultStaysAsItWas() throws {
        let w = try repository(format: "1.1")
        try w.set("rotated", ["--service", "db", "--account", "a"])
        try w.set("added since", ["--service", "added", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "rotate"])
        _ = try driver.git(w, ["checkout", "-q", "-b", "attacker"])
        _ = try driver.git(w, ["checkout", "HEAD~1", "--", "v.vault"])
        _ = try driver.git(w, ["commit", "-q", "-am", "innocent-looking change"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        try w.set("owner's edit", ["--service", "owner", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "owner"])

        let merge = try mergeResult(w, ["merge", "--no-edit", "attacker"])
        #expect(merge.status != 0)
        #expect(merge.stderr.contains("theirs does not descend from the ancestor"), "\(merge.stderr)")
        #expect(merge.stdout.contains("CONFLICT"))
        _ = try driver.git(w, ["merge", "--abort"])
        #expect(try secret(w, "db") == "rotated")
        #expect(try secret(w, "added") == "added since")
        #expect(try secret(w, "owner") == "owner's edit")
    }

    /// Format 3 (R-MRG-18): the old copy's versions are ancestors of ours'; the merge takes ours'
    /// silently, refuses nothing and undoes nothing.
    @Test func oldCopyOnABranch_format3_mergesWithoutUndoingAnything() throws {
        let w = try repository()
        try w.set("rotated", ["--service", "db", "--account", "a"])
        try w.set("added since", ["--service", "added", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "rotate"])
        _ = try driver.git(w, ["checkout", "-q", "-b", "attacker"])
        _ = try driver.git(w, ["checkout", "HEAD~1", "--", "v.vault"])
        _ = try driver.git(w, ["commit", "-q", "-am", "innocent-looking change"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        try w.set("owner's edit", ["--service", "owner", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "owner"])
        let merge = try mergeResult(w, ["merge", "--no-edit", "attacker"])
        #expect(merge.status == 0, "\(merge.stdout) \(merge.stderr)")
        #expect(try secret(w, "db") == "rotated")
        #expect(try secret(w, "added") == "added since")
        #expect(try secret(w, "owner") == "owner's edit")
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(!list.stdout.contains("conflict"), "no copy of a rotated-out secret: \(list.stdout)")
    }

    /// A repository with the driver, a vault holding "db", committed on main; `format` is
    /// `create --format`'s (format 3 by default).
    func repository(format: String? = nil) throws -> Workspace {
        let w = try Workspace()
        try FileManager.default.createDirectory(atPath: w.file("home"), withIntermediateDirectories: true)
        _ = try driver.git(w, ["init", "-q", "-b", "main"])
        _ = try driver.git(w, ["config", "merge.vault.driver", "\(Tool.path) git-merge %O %A %B"])
        try w.write(".gitattributes", "*.vault merge=vault -diff\n")
        try w.write(".gitignore", "pw\n*.lock\n.state/\nhome/\n")
        try w.makeVault(format: format)
        try w.set("start", ["--service", "db", "--account", "a"])
        _ = try driver.git(w, ["add", "."])
        _ = try driver.git(w, ["commit", "-q", "-m", "start"])
        return w
    }

    func mergeResult(_ w: Workspace, _ arguments: [String]) throws -> RunResult {
        try CredentialHelperIntegrationTests.git(
            arguments,
            in: w,
            environment: [
                "VAULTTOOL_PASSWORD_FILE": w.file("pw"), "XDG_STATE_HOME": w.file(".state"), "GIT_AUTHOR_NAME": "t",
                "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
            ]
        )
    }

    /// The review's bypass: a copy from an abandoned feature branch (its own stale edit of "db",
    /// its generation raised by other writes) committed on a branch cut after main rotated "db".
    @Test func staleSiblingCopyOnABranch_isRefused() throws {
        try staleSibling(format: "1.1") { w, merge in
            #expect(merge.status != 0 && merge.stderr.contains("holds an older version of item"), "\(merge.stderr)")
            _ = try driver.git(w, ["merge", "--abort"])
        }
    }

    /// Format 3 (R-MRG-18): the feature branch's edit is concurrent with main's rotation, not an
    /// ancestor: the newer rotation keeps "db", and the feature's edit is kept as a conflict copy,
    /// listed, not lost and not taken.
    @Test func staleSiblingCopyOnABranch_format3_keepsTheRotation_andCopiesTheConcurrentEdit() throws {
        try staleSibling(format: nil) { w, merge in
            #expect(merge.status == 0, "\(merge.stdout) \(merge.stderr)")
            let list = try w.run(["list", "--password-file", "pw", "v.vault"])
            #expect(list.stdout.contains("conflict"), "\(list.stdout)")
        }
    }

    /// The stale-sibling flow: a copy from an abandoned feature branch (its own edit of "db", its
    /// generation raised by other writes) committed on a branch cut after main rotated "db".
    func staleSibling(format: String?, _ check: (Workspace, RunResult) throws -> Void) throws {
        let w = try repository(format: format)
        _ = try driver.git(w, ["checkout", "-q", "-b", "feature"])
        for n in 0..<3 { try w.set("x", ["--service", "bump\(n)", "--account", "a"]) }
        try w.set("stale feature edit", ["--service", "db", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "feature"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        try w.set("rotated", ["--service", "db", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "rotate"])
        _ = try driver.git(w, ["checkout", "-q", "-b", "attacker"])
        _ = try driver.git(w, ["checkout", "feature", "--", "v.vault"])
        _ = try driver.git(w, ["commit", "-q", "-am", "innocent"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        try w.set("o", ["--service", "owner", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "owner"])
        let merge = try mergeResult(w, ["merge", "--no-edit", "attacker"])
        try check(w, merge)
        #expect(try secret(w, "db") == "rotated")
    }

    /// Benign flows the first R-MRG-17 refused: a criss-cross merge (git's virtual ancestor has a
    /// branch's generation) and a rebase that drops the first of two commits (ours does not hold
    /// the dropped commit's changes).
    @Test func crissCrossMerge_andRebaseDroppingACommit_merge() throws {
        let w = try repository()
        _ = try driver.git(w, ["checkout", "-q", "-b", "b"])
        try w.set("b", ["--service", "b", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "b1"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        try w.set("a", ["--service", "main", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "a1"])
        _ = try driver.git(w, ["checkout", "-q", "-b", "b2", "b"])
        #expect(try mergeResult(w, ["merge", "-q", "--no-edit", "main"]).status == 0)
        _ = try driver.git(w, ["checkout", "-q", "main"])
        #expect(try mergeResult(w, ["merge", "-q", "--no-edit", "b"]).status == 0)
        try w.set("a2", ["--service", "main2", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "a2"])
        _ = try driver.git(w, ["checkout", "-q", "b2"])
        try w.set("b3", ["--service", "b3", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "b3"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        let crissCross = try mergeResult(w, ["merge", "--no-edit", "b2"])
        #expect(crissCross.status == 0, "\(crissCross.stdout) \(crissCross.stderr)")
        for service in ["b", "main", "main2", "b3"] { #expect(try secret(w, service) != nil, "\(service)") }

        _ = try driver.git(w, ["checkout", "-q", "-b", "topic"])
        try w.set("t1", ["--service", "t1", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "t1"])
        try w.set("t2", ["--service", "t2", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "t2"])
        // Drop t1: replay t2 (ancestor t1) onto main, which has no t1.
        let rebase = try mergeResult(w, ["rebase", "-q", "--onto", "main", "HEAD~1"])
        #expect(rebase.status == 0, "\(rebase.stdout) \(rebase.stderr)")
        #expect(try secret(w, "t2") == "t2")
        #expect(try secret(w, "t1") == nil)
    }

    /// The driver used to accept git's temporary copy and replace the rollback record with the
    /// merge: merging two branches from before a rekey then retired the newest master key, and the
    /// rekeyed branch read as rolled back. It now leaves the record alone.
    @Test func mergingOldBranches_leavesTheRollbackRecordAlone() throws {
        let w = try repository()
        _ = try driver.git(w, ["branch", "b"])
        _ = try driver.git(w, ["branch", "c"])
        #expect(try w.run(["rekey", "--password-file", "pw", "v.vault"]).status == 0)
        _ = try driver.git(w, ["commit", "-q", "-am", "rekey"])
        let state = ["XDG_STATE_HOME": w.file(".state")]
        for (branch, service) in [("c", "on-c"), ("b", "on-b")] {
            _ = try driver.git(w, ["checkout", "-q", branch])
            let set = try w.run(
                [
                    "set", "--password-file", "pw", "--service", service, "--account", "a", "--accept-rollback",
                    "v.vault",
                ],
                stdin: service,
                environment: state
            )
            #expect(set.status == 0, "\(set.stderr)")
            _ = try driver.git(w, ["commit", "-q", "-am", service])
        }
        #expect(try mergeResult(w, ["merge", "-q", "--no-edit", "c"]).status == 0)
        _ = try driver.git(w, ["checkout", "-q", "main"])
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list.stderr)")
    }

    /// The second review's critical finding: a pull request whose one commit puts back the file
    /// from before a rekey (`git checkout HEAD~1 -- v.vault`), and a reviewer who merges main into
    /// it. The driver accepted git's copy of the PR's file, R-MRG-11 kept its (retired) key because
    /// ours alone differed from the ancestor, and main's new items were sealed under the key the
    /// removed credential opens. Now ours is screened like any write: exit 4, git stops.
    @Test func mergingMainIntoAnOldCopyFromBeforeARekey_isRefused() throws {
        let w = try repository()
        #expect(try w.run(["rekey", "--password-file", "pw", "v.vault"]).status == 0)
        _ = try driver.git(w, ["commit", "-q", "-am", "rekey"])
        _ = try driver.git(w, ["checkout", "-q", "-b", "pr"])
        _ = try driver.git(w, ["checkout", "HEAD~1", "--", "v.vault"])
        _ = try driver.git(w, ["commit", "-q", "-am", "innocent"])
        _ = try driver.git(w, ["checkout", "-q", "main"])
        try w.set("new secret", ["--service", "new", "--account", "a"])
        _ = try driver.git(w, ["commit", "-q", "-am", "new"])
        _ = try driver.git(w, ["checkout", "-q", "pr"])
        let merge = try mergeResult(w, ["merge", "--no-edit", "main"])
        #expect(merge.status != 0 && merge.stderr.contains("is an older copy"), "\(merge.stderr)")
        _ = try driver.git(w, ["merge", "--abort"])
        // The PR's file still has no trace of main's new secret.
        _ = try driver.git(w, ["checkout", "-q", "HEAD", "--", "v.vault"])
        let get = try w.run(["get", "--password-file", "pw", "--service", "new", "--account", "a", "v.vault"])
        #expect(get.status != 0 && !get.stdout.contains("new secret"))
    }

    /// The second review's false alarm: after a migrate that raises the KDF (the same password,
    /// rewrapped), every branch from before it was a rollback on this account.
    @Test func branchFromBeforeAMigrate_isAFork() throws {
        let w = try repository()
        _ = try driver.git(w, ["branch", "old"])
        let migrate = try w.run(["migrate", "--password-file", "pw", "--kdf-memory", "65536", "v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        _ = try driver.git(w, ["commit", "-q", "-am", "migrate"])
        _ = try driver.git(w, ["checkout", "-q", "old"])
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "x", "--account", "a", "v.vault"],
            stdin: "x",
            environment: ["XDG_STATE_HOME": w.file(".state")]
        )
        #expect(set.status == 0, "\(set.stderr)")
    }
}
