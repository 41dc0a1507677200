// vaulttool tests: passwords from a file, stdin, an environment variable and a terminal.

import Foundation
import Testing

@Suite("Password input")
struct PasswordInputTests {
    @Test func fromFile_dropsOneTrailingNewline() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("crlf", Workspace.password + "\r\n")
        #expect(try w.run(["verify", "--password-file", "crlf", "v.vault"]).status == 0)
        try w.write("two", Workspace.password + "\n\n")
        #expect(try w.run(["verify", "--password-file", "two", "v.vault"]).status == 3)
    }

    @Test func fromStdin() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3", ["--service", "s", "--account", "a"])
        let result = try w.run(
            ["get", "--password-stdin", "--service", "s", "v.vault"],
            stdin: Workspace.password + "\n"
        )
        #expect(result.stdout == "s3")
        try w.write("secret", "from-file")
        let set = try w.run(
            ["set", "--password-stdin", "--service", "t", "--account", "a", "--secret-file", "secret", "v.vault"],
            stdin: Workspace.password
        )
        #expect(set.status == 0)
        let clash = try w.run(["set", "--password-stdin", "--service", "u", "v.vault"], stdin: Workspace.password)
        #expect(clash.status == 64)
    }

    @Test func fromEnvironmentVariable_holdsThePasswordItself() throws {
        let w = try Workspace()
        try w.makeVault()
        let ok = try w.run(
            ["verify", "--password-env", "VAULT_PW", "v.vault"],
            environment: ["VAULT_PW": Workspace.password]
        )
        #expect(ok.status == 0, "\(ok.stderr)")
        let unset = try w.run(["verify", "--password-env", "VAULT_PW_UNSET", "v.vault"])
        #expect(unset.status == 64)
        #expect(unset.stderr.contains("VAULT_PW_UNSET"))
    }

    /// Issue 12: `PWX=hunter2 vaulttool get --password-env PWX` printed "cannot read the password file 'hunter2'".
    @Test func environmentVariableValues_neverReachAMessage() throws {
        let w = try Workspace()
        try w.makeVault()
        let value = "hunter2-do-not-print"
        let runs = [
            try w.run(["verify", "--password-env", "PWX", "v.vault"], environment: ["PWX": value]),
            try w.run(["verify", "--password-file-env", "PWX", "v.vault"], environment: ["PWX": value]),
            try w.run(["get", "--password-env", "PWX", "--service", "none", "v.vault"], environment: ["PWX": value]),
        ]
        #expect(runs.map(\.status) == [3, 7, 3])
        for run in runs {
            #expect(!run.stderr.contains(value) && !run.stdout.contains(value), "\(run.stderr)")
        }
        #expect(runs[1].stderr.contains("PWX"))
    }

    @Test func fromEnvironmentVariableNamingAFile() throws {
        let w = try Workspace()
        try w.makeVault()
        let ok = try w.run(
            ["verify", "--password-file-env", "VAULT_PW", "v.vault"],
            environment: ["VAULT_PW": w.file("pw")]
        )
        #expect(ok.status == 0, "\(ok.stderr)")
        // The old meaning of --password-env: a path must not silently become the password.
        let create = try w.run(
            ["create", "--password-env", "VAULT_PW"] + Workspace.fastKDF + ["new.vault"],
            environment: ["VAULT_PW": w.file("pw")]
        )
        #expect(create.status == 64)
        #expect(create.stderr.contains("--password-file-env VAULT_PW"))
        #expect(!create.stderr.contains(w.file("pw")))
        #expect(!FileManager.default.fileExists(atPath: w.file("new.vault")))
        let both = try w.run(["verify", "--password-env", "A", "--password-file-env", "B", "v.vault"])
        #expect(both.status == 64)
    }

    @Test func passwdTakesTheNewPasswordFromTheEnvironment() throws {
        let w = try Workspace()
        try w.makeVault()
        let change = try w.run(
            ["passwd", "--password-file", "pw", "--new-password-env", "NEW_PW", "v.vault"],
            environment: ["NEW_PW": "a new passphrase"]
        )
        #expect(change.status == 0, "\(change.stderr)")
        let reopened = try w.run(["verify", "--password-env", "P", "v.vault"], environment: ["P": "a new passphrase"])
        #expect(reopened.status == 0)
        // Without a new password and without a terminal, the message names passwd's own options.
        let noTerminal = try w.run(
            ["passwd", "--password-env", "P", "v.vault"],
            environment: ["P": "a new passphrase"]
        )
        #expect(noTerminal.status == 64)
        #expect(noTerminal.stderr.contains("No new password given"))
        #expect(noTerminal.stderr.contains("--new-password-file, --new-password-env or --new-password-file-env"))
    }

    @Test func fromATerminal_withoutEcho() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("tty-secret", ["--service", "s", "--account", "a"])
        let result = try Tool.runInTerminal(
            ["get", "--service", "s", "v.vault"],
            typed: Workspace.password + "\n",
            in: w.path
        )
        #expect(result.status == 0)
        #expect(result.stdout == "Password: \r\ntty-secret\r\n")
        #expect(!result.stdout.contains(Workspace.password))
    }

    @Test func create_fromATerminal_asksTwice() throws {
        let w = try Workspace()
        let result = try Tool.runInTerminal(
            ["create"] + Workspace.fastKDF + ["t.vault"],
            typed: "typed pw\ntyped pw\n",
            in: w.path
        )
        #expect(result.stdout.hasPrefix("Password: \r\nRetype password: \r\nCreated "), "\(result.stdout)")
        try w.write("typed", "typed pw")
        #expect(try w.run(["verify", "--password-file", "typed", "t.vault"]).status == 0)
    }
}
