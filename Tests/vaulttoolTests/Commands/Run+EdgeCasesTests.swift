// vaulttool tests: what the outside review of `run` found, each as it was reproduced.

import Foundation
import Glibc
import Testing

@Suite("run: the outside review's findings")
struct RunReviewTests {
    /// R-RUN-13: a secret with a newline reaches a pseudo-terminal as CR LF (ONLCR); that form is
    /// masked too, as is base64 wrapped at 76 columns (`base64`) and Python's `quote` form.
    @Test func crlfForms_wrappedBase64_andQuoteWithSlash_areMasked() throws {
        let w = try runWorkspace()
        try w.set("line1\nline2\n", ["--service", "nl", "--account", "app"])
        let long = "LONGSECRET-" + String(repeating: "x9", count: 40)
        try w.set(long, ["--service", "long", "--account", "app"])
        try w.set("p@ss w/rd&é", ["--service", "url", "--account", "app"])
        let script = #"printf 'line1\r\nline2\r\n'; printf %s "$L" | base64; printf '%s\n' 'p%40ss%20w/rd%26%C3%A9'"#
        let result = try w.runChild(
            ["--env", "N=vault://nl/app", "--env", "L=vault://long/app", "--env", "U=vault://url/app"],
            ["/bin/sh", "-c", script]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            !result.stdout.contains("line1") && !result.stdout.contains("LONG") && !result.stdout.contains("p%40ss")
        )
        #expect(result.stdout.contains("<concealed by vault>"))
    }

    /// R-RUN-1: the `--password-env` variable is a credential: never a reference, never passed on,
    /// and its value (here one that starts like a reference) never shown.
    @Test func thePasswordEnvVariable_isNeverAReference_norPassedOn() throws {
        let w = try runWorkspace()
        let result = try w.run(
            [
                "run", "--vault", "v.vault", "--password-env", "VPW", "--env", "X=\(RunCommandTests.db)",
                "--no-masking", "--",
                "/bin/sh", "-c", "echo \"vpw=${VPW-unset} x=$X\"",
            ],
            environment: ["VPW": Workspace.password]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "vpw=unset x=\(RunCommandTests.dbSecret)\n")
        let refLike = try w.run(
            ["run", "--vault", "v.vault", "--password-env", "VPW", "--", "/bin/true"],
            environment: ["VPW": "vault+Hunter2secret"]
        )
        #expect(!refLike.stderr.contains("Hunter2"), "\(refLike.stderr)")
    }

    /// R-RUN-3: an inherited value that only starts like a reference (it may hold a password of
    /// its own) fails closed without being printed.
    @Test func anInheritedReference_isNotShownInTheError() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            [],
            ["/bin/sh", "-c", "touch started"],
            environment: ["DATABASE_URL": "vault+postgres://user:pw-of-db@dbhost:5432/mydb"]
        )
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("DATABASE_URL") && !result.stderr.contains("pw-of-db"), "\(result.stderr)")
        #expect(w.contents("started") == nil)
    }

    /// R-RUN-6: with standard input closed, the secret's memory file must not become the child's
    /// standard input (vaulttool opens /dev/null on a closed 0, 1 or 2 first).
    @Test func aClosedStandardInput_neverCarriesTheSecret() throws {
        let w = try runWorkspace()
        let command = [
            Tool.path, "run", "--vault", "v.vault", "--password-file", "pw", "--file",
            "F=\(RunCommandTests.db)", "--no-masking", "--", "/bin/sh", "-c", "cat; echo \"F=$F\"",
        ]
        .map { "'\($0)'" }.joined(separator: " ")
        let result = try Tool.runProgram(
            "/bin/sh",
            ["-c", command + " <&-"],
            stdin: nil,
            environment: ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": Tool.stateHome(w.path)]) { $1 },
            in: w.path
        )
        #expect(!result.stdout.contains(RunCommandTests.dbSecret), "\(result.stdout)")
        #expect(!result.stdout.contains("F=/proc/self/fd/0"), "\(result.stdout)")
    }

    /// R-RUN-3: a PATH that is itself a secret is not shown when the command found there fails.
    @Test func aSecretPath_isNotShownWhenTheCommandFails() throws {
        let w = try runWorkspace()
        let hidden = w.file("secretpathXYZ")
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: true)
        try w.write("secretpathXYZ/noexec", "#!/bin/sh\n")
        try w.set("\(hidden):/usr/bin:/bin", ["--service", "path", "--account", "app"])
        let result = try w.runChild(["--env", "PATH=vault://path/app"], ["noexec"])
        #expect(result.status == 126, "\(result.stderr)")
        #expect(!result.stderr.contains("secretpathXYZ"), "\(result.stderr)")
    }

    /// Env files: a lone CR is part of its line (not a second assignment), and a NUL is refused
    /// instead of cutting the value.
    @Test func envFile_loneCR_isNoLineEnd_andNULIsRefused() throws {
        let w = try runWorkspace()
        try w.write("cr.env", "A=1\rB=2\n")
        let cr = try w.runChild(["--env-file", "cr.env", "--no-masking"], ["/bin/sh", "-c", "echo \"B=${B-unset}\""])
        #expect(cr.status == 0 && cr.stdout == "B=unset\n", "\(cr.stdout) \(cr.stderr)")
        try Data("A=a\u{0}b\n".utf8).write(to: URL(fileURLWithPath: w.file("nul.env")))
        let nul = try w.runChild(["--env-file", "nul.env"], ["/bin/true"])
        #expect(nul.status == 64 && nul.stderr.contains("line 1, holds a NUL byte"), "\(nul.stderr)")
    }
}
