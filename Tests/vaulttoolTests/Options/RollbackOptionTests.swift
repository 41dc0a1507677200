// vaulttool tests: an older copy of the vault put back (Spec/cli.md, "Rollback").

import Foundation
import Glibc
import Testing

@Suite("Rollback")
struct RollbackCommandTests {
    /// `v.vault` at generation 4 (items zero and one, rekeyed at generation 4) and `old.vault`, its
    /// generation 2 (item zero), under the master key the rekey retired, put back in its place.
    private func rolledBackWorkspace() throws -> Workspace {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s0", ["--service", "zero", "--account", "a"])
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("old.vault"))
        try w.set("s1", ["--service", "one", "--account", "a"])
        let rekey = try w.run(["rekey", "--password-file", "pw", "v.vault"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try FileManager.default.copyItem(atPath: w.file("old.vault"), toPath: w.file("v.vault"))
        return w
    }

    /// Spec/rollback.md L-RB-1: an older copy under the master key seen (a git branch switch,
    /// `git reset --hard`, the copy a sync tool kept) is a fork: reads and writes go on without
    /// `--accept-rollback`, and `inspect` with a credential says "fork of generation N". Before,
    /// every such case was refused as a rollback.
    @Test func olderCopyUnderTheSameKey_isAFork_readsAndWritesGoOn() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s0", ["--service", "zero", "--account", "a"])
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("old.vault"))
        try w.set("s1", ["--service", "one", "--account", "a"])
        try w.set("s2", ["--service", "two", "--account", "a"])
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try FileManager.default.copyItem(atPath: w.file("old.vault"), toPath: w.file("v.vault"))
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list.stderr)")
        let keyless = try w.run(["inspect", "v.vault"])
        #expect(keyless.stdout.contains("Seen here:   generation 4 (this file: older)\n"))
        #expect(keyless.stdout.contains("it is a fork (another git branch, a discarded commit) or a copy put back"))
        let inspect = try w.run(["inspect", "--password-file", "pw", "v.vault"])
        #expect(inspect.stdout.contains("Seen here:   generation 4 (this file: fork of generation 4)\n"))
        #expect(!inspect.stdout.contains("Warning"), "\(inspect.stdout)")
        let json = try w.run(["inspect", "--json", "--password-file", "pw", "v.vault"]).json()
        #expect((json["seen"] as? [String: Any])?["file"] as? String == "fork")
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "new", "--account", "a", "v.vault"],
            stdin: "x"
        )
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set.stderr)")
        #expect(
            try w.run(["get", "--password-file", "pw", "--service", "new", "--account", "a", "v.vault"]).stdout == "x"
        )
    }

    @Test func read_ofOldCopy_warnsOnStderrAndSucceeds() throws {
        let w = try rolledBackWorkspace()
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0)
        #expect(
            list.stderr
                == "Warning: 'v.vault' may have been rolled back: generation 2 is sealed under a master key that a "
                + "rekey replaced here (generation 4 was seen); an older copy may have been put back. Reading it "
                + "anyway; writes are refused without --accept-rollback.\n"
        )
    }

    @Test func write_toOldCopy_exits4AndWritesNothing() throws {
        let w = try rolledBackWorkspace()
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "new", "--account", "a", "v.vault"],
            stdin: "x"
        )
        #expect(set.status == 4)
        #expect(
            set.stderr.hasPrefix(
                "Error: '\(w.file("v.vault"))' was rolled back: generation 2 is sealed under a master key that a rekey replaced"
            )
        )
        #expect(set.stderr.hasSuffix("Nothing was written; pass --accept-rollback to write to it anyway\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        let rm = try w.run(["rm", "--password-file", "pw", "--service", "zero", "v.vault"])
        #expect(rm.status == 4)
    }

    @Test func write_withAcceptRollback_writesAndRecordsTheNewGeneration() throws {
        let w = try rolledBackWorkspace()
        let set = try w.run(
            ["set", "--accept-rollback", "--password-file", "pw", "--service", "new", "--account", "a", "v.vault"],
            stdin: "x"
        )
        #expect(set.status == 0, "\(set.stderr)")
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0)
        #expect(list.stderr == "")
        let inspect = try w.run(["inspect", "--json", "v.vault"]).json()
        let seen = try #require(inspect["seen"] as? [String: Any])
        #expect(seen["generation"] as? Int == 3)
        #expect(seen["file"] as? String == "same")
    }

    /// Accepting needs a write: a command that writes nothing leaves the record, and the
    /// rollback is still reported.
    @Test func acceptRollback_withoutAWrite_keepsTheRecord() throws {
        let w = try rolledBackWorkspace()
        let rm = try w.run(["rm", "--accept-rollback", "--password-file", "pw", "--service", "nothing", "v.vault"])
        #expect(rm.status == 2)
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.stderr.hasPrefix("Warning: 'v.vault' may have been rolled back"), "\(list.stderr)")
    }

    /// The copy a sync tool (or a teammate's branch) brings at the same generation, under the same
    /// key, is a fork too: before, it was refused ("differs from the generation seen").
    @Test func sameGeneration_differentHeader_underTheSameKey_isAFork() throws {
        let w = try Workspace()
        try w.makeVault()
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("fork.vault"))
        try w.set("here", ["--service", "here", "--account", "a"])
        // Another machine (its own state) writes generation 2 of the copy; then a sync puts it here.
        let other = try w.run(
            ["set", "--password-file", "pw", "--service", "there", "--account", "a", "fork.vault"],
            stdin: "x",
            environment: ["XDG_STATE_HOME": w.file("other-state")]
        )
        #expect(other.status == 0, "\(other.stderr)")
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try FileManager.default.copyItem(atPath: w.file("fork.vault"), toPath: w.file("v.vault"))
        let get = try w.run(["get", "--password-file", "pw", "--service", "there", "--account", "a", "v.vault"])
        #expect(get.status == 0 && get.stderr.isEmpty, "\(get.stderr)")
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "x", "--account", "a", "v.vault"],
            stdin: "x"
        )
        #expect(set.status == 0, "\(set.stderr)")
    }

    @Test func inspect_withoutPassword_showsTheRecordAndWarns() throws {
        let w = try rolledBackWorkspace()
        let inspect = try w.run(["inspect", "v.vault"])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("Seen here:   generation 4 (this file: older)\n"))
        #expect(inspect.stdout.contains("Warning: generation 4 of this vault was seen here before: this file is older"))
        // With the credential, the master key tells: a rekey retired the copy's key.
        let keyed = try w.run(["inspect", "--password-file", "pw", "v.vault"])
        #expect(keyed.stdout.contains("Seen here:   generation 4 (this file: rolled back)\n"), "\(keyed.stdout)")
        #expect(keyed.stdout.contains("this file was rolled back: generation 2 is sealed under a master key"))
    }

    @Test func stateFile_goesUnderXDGStateHome_withPrivateModes() throws {
        let w = try Workspace()
        try w.makeVault()
        let id = try #require(try w.run(["inspect", "--json", "v.vault"]).json()["vaultID"] as? String)
        let path = w.file(".state/vault/seen/\(id).seen")
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(w.file(".state/vault/seen"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        // Without XDG_STATE_HOME the state goes to ~/.local/state/vault/seen.
        let home = w.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let list = try w.run(
            ["list", "--password-file", "pw", "v.vault"],
            environment: ["XDG_STATE_HOME": "", "HOME": home]
        )
        #expect(list.status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/.local/state/vault/seen/\(id).seen"))
    }

    @Test func corruptStateFile_isAClearError() throws {
        let w = try Workspace()
        try w.makeVault()
        let id = try #require(try w.run(["inspect", "--json", "v.vault"]).json()["vaultID"] as? String)
        try w.write(".state/vault/seen/\(id).seen", "not a state file\n")
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 1)
        #expect(
            list.stderr.hasPrefix(
                "Error: The rollback state file '\(w.file(".state/vault/seen/\(id).seen"))' cannot be used"
            )
        )
        let set = try w.run(
            ["set", "--accept-rollback", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],
            stdin: "x"
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try w.run(["list", "--password-file", "pw", "v.vault"]).status == 0)
    }

    @Test func unwritableStateDirectory_readsWarn_writesExit7() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("not-a-directory", "")
        let environment = ["XDG_STATE_HOME": w.file("not-a-directory")]
        let list = try w.run(["list", "--password-file", "pw", "v.vault"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stderr.hasPrefix("Warning: the rollback state cannot be used ("))
        #expect(list.stderr.hasSuffix("rollback is not checked.\n"))
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],
            stdin: "x",
            environment: environment
        )
        #expect(set.status == 7)
    }

    // The finding of issue 9: a removed credential must not read what is written after an old copy comes back.
    @Test func removedKeyFile_inOldCopyPutBack_cannotBeUsedToWriteOnIt() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("kf", String(repeating: "k", count: 32))
        #expect(try w.run(["passwd", "--password-file", "pw", "--add-key-file", "kf", "v.vault"]).status == 0)
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("old.vault"))
        #expect(try w.run(["passwd", "--password-file", "pw", "--remove-key-file", "v.vault"]).status == 0)
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try FileManager.default.copyItem(atPath: w.file("old.vault"), toPath: w.file("v.vault"))
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        for credential in [["--password-file", "pw"], ["--key-file", "kf"]] {
            let set = try w.run(
                ["set"] + credential + ["--service", "new", "--account", "a", "v.vault"],
                stdin: "the new secret"
            )
            #expect(set.status == 4, "\(set.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
    }
}

@Suite("Rollback: the README's sync-conflict merge")
struct SyncConflictForkTests {
    /// Syncthing kept the other machine's file and handed this machine's edits over as a conflict
    /// copy. Before, the README's exact `merge --remove-merged` was refused as a rollback: the kept
    /// file is a fork under the same key, so it now merges with no `--accept-rollback`.
    @Test func syncToolKeepsTheRemoteFile_readmeMergeRuns() throws {
        let w = try Workspace()
        try w.makeVault("app.vault")
        try FileManager.default.copyItem(atPath: w.file("app.vault"), toPath: w.file("remote.vault"))
        try w.set("local 1", ["--service", "local", "--account", "a"], vault: "app.vault")
        try w.set("local 2", ["--service", "local2", "--account", "a"], vault: "app.vault")
        let remote = try w.run(
            ["set", "--password-file", "pw", "--service", "remote", "--account", "a", "remote.vault"],
            stdin: "remote",
            environment: ["XDG_STATE_HOME": w.file("other-state")]
        )
        #expect(remote.status == 0, "\(remote.stderr)")
        try FileManager.default.moveItem(
            atPath: w.file("app.vault"),
            toPath: w.file("app.sync-conflict-20261201-101010-ABCDEFG.vault")
        )
        try FileManager.default.moveItem(atPath: w.file("remote.vault"), toPath: w.file("app.vault"))
        let merge = try w.run([
            "merge", "--password-file", "pw", "--remove-merged", "app.vault",
            "app.sync-conflict-20261201-101010-ABCDEFG.vault",
        ])
        #expect(merge.status == 0, "\(merge.stderr)")
        for (service, secret) in [("local", "local 1"), ("local2", "local 2"), ("remote", "remote")] {
            let get = try w.run(["get", "--password-file", "pw", "--service", service, "--account", "a", "app.vault"])
            #expect(get.stdout == secret && get.stderr.isEmpty, "\(service): \(get.stderr)")
        }
    }
}
