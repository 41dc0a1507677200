// vaulttool tests: `vaulttool run`, with real child processes (Spec/cli.md, "run").

import Foundation
import Glibc
import Testing

/// A reference to the generic password `service`/`account` (Spec/cli.md, "References").
func vaultReference(_ service: String, _ account: String) -> String { "vault://\(service)/\(account)" }

/// A workspace with `v.vault` holding `db`/`app` = "hunter2-db" and `api`/`ci` = "tok-api-77".
func runWorkspace() throws -> Workspace {
    let w = try Workspace()
    try w.makeVault()
    try w.set(RunCommandTests.dbSecret, ["--service", "db", "--account", "app"])
    try w.set(RunCommandTests.apiSecret, ["--service", "api", "--account", "ci"])
    return w
}

extension Workspace {
    /// `vaulttool run --vault v.vault --password-file pw <options> -- <command>`.
    @discardableResult
    func runChild(
        _ options: [String],
        _ command: [String],
        environment: [String: String] = [:]
    ) throws -> RunResult {
        try run(
            ["run", "--vault", "v.vault", "--password-file", "pw"] + options + ["--"] + command,
            environment: environment
        )
    }

    /// The contents of a file the child wrote, or `nil` when it does not exist.
    func contents(_ name: String) -> String? {
        FileManager.default.contents(atPath: file(name)).map { String(decoding: $0, as: UTF8.self) }
    }
}

@Suite("run: environment and references")
struct RunCommandTests {
    static let dbSecret = "hunter2-db"
    static let apiSecret = "tok-api-77"
    static let db = vaultReference("db", "app")
    static let api = vaultReference("api", "ci")

    /// Spec: Spec/cli.md, "run", R-RUN-1, R-RUN-2.
    @Test func inheritedReference_isReplacedBySecret() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            [],
            ["/bin/sh", "-c", #"printf %s "$DB_PASSWORD" > value; printf %s "$PLAIN" > plain"#],
            environment: ["DB_PASSWORD": Self.db, "PLAIN": "just text"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == Self.dbSecret)
        #expect(w.contents("plain") == "just text")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-1.
    @Test func envOption_setsSecret_andOverridesInherited() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--env", "TOKEN=\(Self.api)"],
            ["/bin/sh", "-c", #"printf %s "$TOKEN" > value"#],
            environment: ["TOKEN": "inherited"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == Self.apiSecret)
    }

    /// Spec: Spec/cli.md, "run", "Env files".
    @Test func envFile_commentsBlankLinesQuotesAndPlainValues() throws {
        let w = try runWorkspace()
        try w.write(
            "app.env",
            """
            # the database
            DB_PASSWORD=\(Self.db)

            export API_TOKEN="\(Self.api)"
              MODE = 'release mode'\r
            EMPTY=
            HASH=a#b
            """
        )
        let result = try w.runChild(
            ["--env-file", "app.env"],
            [
                "/bin/sh", "-c",
                #"printf '%s|%s|%s|%s|%s' "$DB_PASSWORD" "$API_TOKEN" "$MODE" "${EMPTY-unset}" "$HASH" > value"#,
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == "\(Self.dbSecret)|\(Self.apiSecret)|release mode||a#b")
    }

    /// Spec: Spec/cli.md, "run", "Env files".
    @Test func envFile_badLine_isNamedByNumber_notQuoted() throws {
        let w = try runWorkspace()
        try w.write("bad.env", "A=1\nthis line holds s3cr3t-text\n")
        let result = try w.runChild(["--env-file", "bad.env"], ["/bin/sh", "-c", "touch started"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("line 2"))
        #expect(!result.stderr.contains("s3cr3t-text"))
        #expect(w.contents("started") == nil)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-3.
    @Test func missingItem_childNeverStarts_errorNamesVariableAndReference() throws {
        let w = try runWorkspace()
        let missing = vaultReference("db", "nobody")
        let result = try w.runChild(
            ["--env", "GOOD=\(Self.db)", "--env", "BAD=\(missing)"],
            ["/bin/sh", "-c", "touch started"]
        )
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("BAD"))
        #expect(result.stderr.contains(missing))
        #expect(!result.stderr.contains(Self.dbSecret))
        #expect(result.stdout.isEmpty)
        #expect(w.contents("started") == nil)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-3.
    @Test func wrongPassword_childNeverStarts_exit3() throws {
        let w = try runWorkspace()
        try w.write("wrong", "not the password\n")
        let result = try w.run(
            [
                "run", "--vault", "v.vault", "--password-file", "wrong", "--env", "X=\(Self.db)", "--", "/bin/sh", "-c",
                "touch started",
            ]
        )
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("X=\(Self.db)"))
        #expect(w.contents("started") == nil)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-2, R-RUN-3.
    @Test func malformedInheritedReference_exit64_childNeverStarts() throws {
        let w = try runWorkspace()
        let result = try w.runChild([], ["/bin/sh", "-c", "touch started"], environment: ["BROKEN": "vault://"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("BROKEN"))
        #expect(w.contents("started") == nil)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-2.
    @Test func envOptionWithoutReference_isUsageError() throws {
        let w = try runWorkspace()
        let result = try w.runChild(["--env", "X=plain"], ["/bin/sh", "-c", "touch started"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Usage: vaulttool run"))
        #expect(w.contents("started") == nil)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-1.
    @Test func sameVariableTwice_isUsageError() throws {
        let w = try runWorkspace()
        let result = try w.runChild(["--env", "X=\(Self.db)", "--file", "X=\(Self.api)"], ["/bin/true"])
        #expect(result.status == 64)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-4, R-RUN-6.
    @Test func secretWithNUL_refusedAsVariable_butFineAsFile() throws {
        let w = try runWorkspace()
        try w.write("nul", "ab\u{0}cd")
        #expect(
            try w.run([
                "set", "--password-file", "pw", "--service", "bin", "--account", "x", "--secret-file", "nul",
                "v.vault",
            ]).status == 0
        )
        let ref = vaultReference("bin", "x")
        let asEnv = try w.runChild(["--env", "B=\(ref)"], ["/bin/sh", "-c", "touch started"])
        #expect(asEnv.status == 1, "\(asEnv.stderr)")
        #expect(asEnv.stderr.contains("--file B="))
        #expect(w.contents("started") == nil)
        let asFile = try w.runChild(["--file", "B=\(ref)"], ["/bin/sh", "-c", #"cat "$B" > copy"#])
        #expect(asFile.status == 0, "\(asFile.stderr)")
        #expect(FileManager.default.contents(atPath: w.file("copy")).map(Array.init) == Array("ab\u{0}cd".utf8))
    }

    /// Spec: Spec/cli.md, "run", R-RUN-5.
    @Test func pristine_childSeesOnlyResolvedVariablesAndPath() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--pristine", "--env", "TOKEN=\(Self.api)"],
            ["/usr/bin/env"],
            environment: ["UNRELATED": "leak", "DB_PASSWORD": Self.db]
        )
        #expect(result.status == 0, "\(result.stderr)")
        // Masked on stdout, so the child writes through env(1) to a file as well.
        let lines = Set(result.stdout.split(separator: "\n").map(String.init))
        #expect(
            lines == [
                "PATH=/usr/local/bin:/usr/bin:/bin", "TOKEN=<concealed by vault>", "DB_PASSWORD=<concealed by vault>",
            ]
        )
        let written = try w.runChild(
            ["--pristine", "--env", "TOKEN=\(Self.api)"],
            ["/bin/sh", "-c", "/usr/bin/env > env.txt"],
            environment: ["UNRELATED": "leak"]
        )
        #expect(written.status == 0)
        let file = Set((w.contents("env.txt") ?? "").split(separator: "\n").map(String.init))
        // sh itself adds PWD (and may add SHLVL and _), never anything of vaulttool's environment.
        #expect(file.contains("TOKEN=\(Self.apiSecret)"))
        #expect(file.contains("PATH=/usr/local/bin:/usr/bin:/bin"))
        #expect(!file.contains { $0.hasPrefix("UNRELATED=") || $0.hasPrefix("HOME=") || $0.hasPrefix("TERM=") })
    }

    /// Spec: Spec/cli.md, "run", R-RUN-1.
    @Test func passwordEnvVariable_isNotPassedToChild() throws {
        let w = try runWorkspace()
        let result = try w.run(
            [
                "run", "--vault", "v.vault", "--password-env", "VPW", "--env", "X=\(Self.db)", "--", "/bin/sh", "-c",
                #"printf %s "${VPW-unset}" > value"#,
            ],
            environment: ["VPW": Workspace.password]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == "unset")
    }

    /// Spec: Spec/cli.md, "run", 4.21 (the options end at the command).
    @Test func commandAfterDashes_keepsItsOwnHelpOption() throws {
        let w = try runWorkspace()
        let result = try w.runChild(["--env", "X=\(Self.db)"], ["/usr/bin/printf", "%s\\n", "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "--help\n")
        // Without '--', options end at the command's first word too.
        let bare = try w.run(["run", "--vault", "v.vault", "--password-file", "pw", "/usr/bin/printf", "%s\\n", "-h"])
        #expect(bare.stdout == "-h\n", "\(bare.stderr)")
    }

    /// Spec: Spec/cli.md, "run", 4.21 (Vault).
    @Test func worksThroughTheAgent_withoutCredentials() throws {
        let w = try runWorkspace()
        let agent = try AgentCommandTests.RunningAgent(in: w)
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        let result = try w.run(
            ["run", "--vault", "v.vault", "--env", "X=\(Self.db)", "--", "/bin/sh", "-c", #"printf %s "$X" > value"#],
            environment: agent.environment
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == Self.dbSecret)
    }

    /// Spec: Spec/cli.md, "run", 4.21 (Vault).
    @Test func vaultFromEnvironmentVariable() throws {
        let w = try runWorkspace()
        let result = try w.run(
            [
                "run", "--password-file", "pw", "--env", "X=\(Self.db)", "--", "/bin/sh", "-c",
                #"printf %s "$X" > value"#,
            ],
            environment: ["VAULTTOOL_VAULT": w.file("v.vault")]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == Self.dbSecret)
    }
}
