// vaulttool tests: where `set` takes the secret from, and the empty-secret rule.

import Foundation
import Glibc
import Testing

@Suite("set: the secret")
struct SetSecretTests {
    /// Issue 12: an empty pipe replaced the stored secret with nothing and exited 0.
    @Test func emptyStdin_isRefused_andTheStoredSecretStays() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("kept", ["--service", "s", "--account", "a"])
        let empty = try w.run(
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],
            stdin: ""
        )
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("--allow-empty"))
        let get = try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(get.stdout == "kept")
        let added = try w.run(
            ["set", "--password-file", "pw", "--service", "new", "--account", "a", "v.vault"],
            stdin: ""
        )
        #expect(added.status == 64)
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect(!list.stdout.contains("\"new\""))
    }

    @Test func emptySecretFile_isRefusedToo() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("empty", "")
        let result = try w.run(
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "--secret-file", "empty", "v.vault"]
        )
        #expect(result.status == 64)
    }

    @Test func allowEmpty_storesAnEmptySecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("old", ["--service", "s", "--account", "a"])
        let result = try w.run(
            ["set", "--allow-empty", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],
            stdin: ""
        )
        #expect(result.status == 0, "\(result.stderr)")
        let get = try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(get.status == 0)
        #expect(get.stdoutBytes.isEmpty)
    }

    /// Interactive `set` asks for the vault password before the secret.
    @Test func terminal_asksForThePasswordFirst() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try Tool.runInTerminal(
            ["set", "--service", "s", "--account", "a", "v.vault"],
            typed: Workspace.password + "\ntyped-secret\ntyped-secret\n",
            in: w.path
        )
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.hasPrefix("Password: \r\nSecret: \r\nRetype secret: "), "\(result.stdout)")
        let get = try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(get.stdout == "typed-secret")
    }

    /// In format 1.1 a ThisDeviceOnly item is stored under a device-tagged ID: `set` prints
    /// that one, so that `rm --id` finds it.
    @Test func deviceBoundItem_printsTheIDItIsStoredUnder() throws {
        let w = try Workspace()
        try w.makeVault()
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: w.file("ds")))
        #expect(chmod(w.file("ds"), 0o600) == 0)
        let set = try w.run(
            [
                "set", "--password-file", "pw", "--device-secret-file", "ds", "--service", "s", "--account", "a",
                "--accessibility", "whenUnlockedThisDeviceOnly", "v.vault",
            ],
            stdin: "bound"
        )
        #expect(set.status == 0, "\(set.stderr)")
        let id = String(set.stdout.dropFirst("Added item ".count).dropLast(2))
        let rm = try w.run(["rm", "--id", id, "--password-file", "pw", "--device-secret-file", "ds", "v.vault"])
        #expect(rm.status == 0, "\(rm.stderr)")
    }
}
