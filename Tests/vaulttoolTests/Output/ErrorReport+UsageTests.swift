// vaulttool tests: the input mistakes that Spec/cli.md section 5 lists under exit status 64.

import Foundation
import Testing

@Suite("Exit status 64 beyond the command line")
struct UsageExitStatusTests {
    @Test func emptySecret_unsetPasswordVariable_badLockTimeout_andNoAgent_exit64() throws {
        let w = try Workspace()
        try w.write("pw", "pw")
        #expect(try w.run(["create", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"]).status == 0)

        let empty = try w.run(
            ["set", "--password-file", "pw", "--service", "svc", "--account", "acct", "v.vault"],
            stdin: ""
        )
        #expect(empty.status == 64, "\(empty.stderr)")

        let unset = try w.run(["list", "--password-env", "VAULTTOOL_TEST_UNSET_VARIABLE", "v.vault"])
        #expect(unset.status == 64, "\(unset.stderr)")

        let timeout = try w.run(
            ["set", "--password-file", "pw", "--service", "svc", "--account", "acct", "v.vault"],
            stdin: "s",
            environment: ["VAULTTOOL_LOCK_TIMEOUT": "forever"]
        )
        #expect(timeout.status == 64, "\(timeout.stderr)")

        let lock = try w.run(["lock", "v.vault"], environment: ["VAULT_AGENT_SOCK": ""])
        #expect(lock.status == 64, "\(lock.stderr)")

        try w.write("short.key", "too short")
        let key = try w.run(["passwd", "--password-file", "pw", "--add-key-file", "short.key", "v.vault"])
        #expect(key.status == 64, "\(key.stderr)")
    }
}
