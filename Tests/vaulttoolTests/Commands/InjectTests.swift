// vaulttool tests: inject renders {{ vault://… }} byte for byte, or writes nothing at all.

import Foundation
import Glibc
import Testing

@Suite("inject")
struct InjectCommandTests {
    /// A workspace with `v.vault` holding `db/app` = `s3cr3t` and a binary secret `bin/key`.
    private func workspace() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.makeVault()
        try workspace.set("s3cr3t", ["--service", "db", "--account", "app"])
        try Data([0x00, 0xFF, 0x0A, 0x1B]).write(to: URL(fileURLWithPath: workspace.file("key.bin")))
        try workspace.set("", ["--service", "bin", "--account", "key", "--secret-file", "key.bin"])
        return workspace
    }

    private let access = ["--vault", "v.vault", "--password-file", "pw"]

    @Test func references_areReplacedByteForByte_andEverythingElseIsKept() throws {
        let workspace = try workspace()
        let template = "a: \"{{ vault://db/app }}\"\nb: {{ .Values.x }}\nc: {{vault://bin/key}}{{\tvault://db/app\t}}"
        try workspace.write("t.tmpl", template)
        let result = try workspace.run(["inject", "-i", "t.tmpl", "-o", "out"] + access)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let out = try [UInt8](Data(contentsOf: URL(fileURLWithPath: workspace.file("out"))))
        let expected =
            Array("a: \"s3cr3t\"\nb: {{ .Values.x }}\nc: ".utf8) + [0x00, 0xFF, 0x0A, 0x1B] + Array("s3cr3t".utf8)
        #expect(out == expected)
        var info = stat()
        #expect(stat(workspace.file("out"), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func standardInput_toStandardOutput_addsNoNewline() throws {
        let workspace = try workspace()
        let result = try workspace.run(["inject"] + access, stdin: "pw={{ vault://db/app }}")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "pw=s3cr3t")
    }

    @Test func aMissingItem_writesNothing_andNamesTheLineAndReference_notASecret() throws {
        let workspace = try workspace()
        try workspace.write("out", "old contents\n")
        try workspace.write("t.tmpl", "x={{ vault://db/app }}\ny={{ vault://db/missing }}\n")
        let result = try workspace.run(["inject", "-i", "t.tmpl", "-o", "out"] + access)
        #expect(result.status == 2)
        #expect(result.stderr == "Error: Line 2, reference 'vault://db/missing': no item matches\n")
        #expect(!result.stderr.contains("s3cr3t") && result.stdout.isEmpty)
        #expect(try String(contentsOfFile: workspace.file("out"), encoding: .utf8) == "old contents\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.path).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aMalformedReference_exits64_beforeTheVaultIsOpened() throws {
        let workspace = try Workspace()
        try workspace.write("t.tmpl", "ok\n  {{ vault://db/a%2 }}\n")
        let result = try workspace.run(["inject", "-i", "t.tmpl", "--vault", "absent.vault", "--password-file", "pw"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Line 2, column 3: the reference 'vault://db/a%2' is not valid: "))
    }

    @Test func dryRun_listsTheReferences_withoutAVault() throws {
        let workspace = try Workspace()
        try workspace.write("t.tmpl", "{{ vault://a/b }} {{ x }}\n\n  {{ vault+https://u@h/p?group=g }}")
        let result = try workspace.run(["inject", "--dry-run", "-i", "t.tmpl", "--vault", "absent.vault"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1:1: vault://a/b\n3:3: vault+https://u@h/p?group=g\n")
    }

    /// Only a regular file is replaced: a symlink, a device or a directory at the output is
    /// refused (a root `inject -o /dev/null` must not replace /dev/null with secrets).
    @Test func anOutputThatIsNotARegularFile_isRefused_andLeftAlone() throws {
        let workspace = try workspace()
        try workspace.write("target", "must not change\n")
        #expect(symlink(workspace.file("target"), workspace.file("link")) == 0)
        #expect(mkfifo(workspace.file("fifo"), 0o600) == 0)
        try workspace.write("t.tmpl", "{{ vault://db/app }}")
        for (output, kind) in [("link", "a symbolic link"), ("fifo", "a FIFO"), (".", "the path must name a file")] {
            let result = try workspace.run(["inject", "-i", "t.tmpl", "-o", output] + access)
            #expect(result.status == 64, "\(output): \(result.stderr)")
            #expect(result.stderr.contains(kind) && result.stderr.contains("nothing was written"), "\(result.stderr)")
        }
        #expect(try String(contentsOfFile: workspace.file("target"), encoding: .utf8) == "must not change\n")
        var info = stat()
        #expect(lstat(workspace.file("link"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.path).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty)
        let dash = try workspace.run(["inject", "-i", "t.tmpl", "-o", "-"] + access)
        #expect(dash.status == 0 && dash.stdout == "s3cr3t", "\(dash.stderr)")
    }

    @Test func aBinarySecret_isRefusedOnATerminal_butNotInAPipe() throws {
        let workspace = try workspace()
        try workspace.write("t.tmpl", "{{ vault://bin/key }}")
        let piped = try workspace.run(["inject", "-i", "t.tmpl"] + access)
        #expect(piped.status == 0 && piped.stdoutBytes == [0x00, 0xFF, 0x0A, 0x1B])
        // script(1) gives vaulttool a terminal on standard output.
        let command = ([Tool.path, "inject", "-i", "t.tmpl"] + access).joined(separator: " ")
        let onTerminal = try Tool.runProgram(
            "/usr/bin/script",
            ["-qec", command + "; echo \"[status $?]\"", "/dev/null"],
            stdin: nil,
            environment: ProcessInfo.processInfo.environment.merging(
                ["XDG_STATE_HOME": Tool.stateHome(workspace.path)],
                uniquingKeysWith: { $1 }
            ),
            in: workspace.path
        )
        #expect(
            onTerminal.stdout.contains("holds control characters or bytes that are not UTF-8"),
            "\(onTerminal.stdout)"
        )
        #expect(onTerminal.stdout.contains("[status 1]"))
        #expect(!onTerminal.stdoutBytes.contains(0x1B))
    }
    @Test func throughTheAgent_noCredentialIsNeeded() throws {
        let workspace = try workspace()
        let agent = try AgentCommandTests.RunningAgent(in: workspace)
        let command = ["inject", "--vault", "v.vault"]
        #expect(try workspace.run(command, stdin: "{{ vault://db/app }}", environment: agent.environment).status == 64)
        let unlock = try workspace.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment)
        #expect(unlock.status == 0, "\(unlock.stderr)")
        let result = try workspace.run(command, stdin: "{{ vault://db/app }}", environment: agent.environment)
        #expect(result.status == 0 && result.stdout == "s3cr3t", "\(result.stderr)")
    }

    /// Spec/cli.md 4.23: the standard vault opens with this user's device secret when no
    /// credential is named, as the credential helpers open it.
    @Test func theStandardVault_opensWithTheDeviceSecret() throws {
        let workspace = try Workspace()
        let home = ["XDG_DATA_HOME": workspace.file("data"), "VAULTTOOL_VAULT": ""]
        let store = try workspace.run(
            ["credential-helper", "git", "store"],
            stdin: "protocol=https\nhost=example.org\nusername=ci\npassword=tok-9\n\n",
            environment: home
        )
        #expect(store.status == 0, "\(store.stderr)")
        let result = try workspace.run(["inject"], stdin: "{{ vault+https://ci@example.org }}", environment: home)
        #expect(result.status == 0 && result.stdout == "tok-9", "\(result.stderr)")
    }

    /// Text that starts like a reference is one, and fails closed: an unterminated placeholder,
    /// one broken by a newline, one that is not UTF-8, and `VAULT://` in upper case.
    @Test func aPlaceholderThatStartsLikeAReference_mustBeOne() throws {
        let workspace = try workspace()
        for (template, problem) in [
            ("a {{ vault://db/app\n}}", "no closing '}}' on its line"),
            ("a {{ vault://db/app }", "no closing '}}' on its line"),
            ("a {{ vault://db/a\u{FF}pp }}", "not UTF-8"),
        ] {
            var bytes = Array(template.utf8)
            if problem == "not UTF-8" { bytes = Array("a {{ vault://db/a".utf8) + [0xFF] + Array("pp }}".utf8) }
            let result = try Tool.run(["inject", "--dry-run"], stdin: bytes, in: workspace.path)
            #expect(result.status == 64 && result.stderr.contains(problem), "\(template): \(result.stderr)")
        }
        let upper = try workspace.run(["inject"] + access, stdin: "{{ VAULT://db/app }}")
        #expect(upper.status == 0 && upper.stdout == "s3cr3t", "\(upper.stderr)")
    }
}
