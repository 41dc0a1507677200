// vaulttool tests: an older copy of the vault put back (Spec/cli.md, "Rollback").

import Foundation
import Glibc
import Testing

@Suite("Rollback")
struct RollbackCommandTests {
    /// `v.vault` at generation 4 (items zero, one and two) and `old.vault`, its generation 2 (item zero),
    /// put back in its place.
    private func rolledBackWorkspace() throws -> Workspace {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s0", ["--service", "zero", "--account", "a"])
        try FileManager.default.copyItem(atPath: w.file("v.vault"), toPath: w.file("old.vault"))
        try w.set("s1", ["--service", "one", "--account", "a"])
        try w.set("s2", ["--service", "two", "--account", "a"])
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try FileManager.default.copyItem(atPath: w.file("old.vault"), toPath: w.file("v.vault"))
        return w
    }

    @Test func read_ofOldCopy_warnsOnStderrAndSucceeds() throws {
        let w = try rolledBackWorkspace()
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0)
        #expect(
            list.stderr
                == "Warning: 'v.vault' may have been rolled back: generation 2 is older than generation 4 seen before; "
                + "an older copy may have been put back. Reading it anyway; writes are refused without --accept-rollback.\n"
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
                "Error: '\(w.file("v.vault"))' was rolled back: generation 2 is older than generation 4"
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

    @Test func sameGeneration_differentHeader_isRolledBack() throws {
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
        #expect(get.status == 0)
        #expect(get.stderr.contains("generation 2 differs from the generation 2 seen before"))
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "x", "--account", "a", "v.vault"],
            stdin: "x"
        )
        #expect(set.status == 4)
    }

    @Test func inspect_withoutPassword_showsTheRecordAndWarns() throws {
        let w = try rolledBackWorkspace()
        let inspect = try w.run(["inspect", "v.vault"])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("Seen here:   generation 4 (this file: older)\n"))
        #expect(inspect.stdout.contains("Warning: generation 4 of this vault was seen here before: this file is older"))
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
