// vaulttool tests: the NFC password rule (R11-PW-1) holds for keyslots written into every format
// that follows it (1.1, 1.2 and 2.0), not only for minor versions >= 1 of major 1.

import Testing

@Suite("Password rule across versions")
struct PasswordRuleByVersionTests {
    /// A password typed in decomposed form (e + combining acute) opens the slot `passwd` made
    /// with it. In a 2.0 vault the writer used to skip the normalization that the reader makes
    /// (minor 0 read as "before 1.1"), and the new password never opened the vault again.
    @Test(arguments: ["1.1", "1.2", "2.0"])
    func passwd_withADecomposedPassword_opensAfterwards(version: String) throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        if version != "1.1" {
            let migrate = try w.run(
                ["migrate", "--to", version, "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"]
            )
            #expect(migrate.status == 0, "\(migrate.stderr)")
        }
        #expect(try w.set("the-secret", ["--service", "a"]).status == 0)
        try w.write("decomposed", "cafe\u{0301}-password\n")
        try w.write("composed", "caf\u{00E9}-password\n")
        let passwd = try w.run(
            ["passwd", "--password-file", "pw", "--new-password-file", "decomposed"] + Workspace.fastKDF + ["v.vault"]
        )
        #expect(passwd.status == 0, "\(passwd.stderr)")
        for file in ["decomposed", "composed"] {
            let get = try w.run(["get", "--password-file", file, "--service", "a", "v.vault"])
            #expect(get.status == 0, "\(version) \(file): \(get.stderr)")
            #expect(get.stdout == "the-secret")
        }
    }
}
