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

    @Test func fromEnvironmentVariableNamingAFile() throws {
        let w = try Workspace()
        try w.makeVault()
        let ok = try w.run(
            ["verify", "--password-env", "VAULT_PW", "v.vault"],
            environment: ["VAULT_PW": w.file("pw")]
        )
        #expect(ok.status == 0)
        let unset = try w.run(["verify", "--password-env", "VAULT_PW_UNSET", "v.vault"])
        #expect(unset.status == 64)
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
        #expect(result.stdout == "Password: \r\ntty-secret")
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
