// vaulttool tests: `vaulttool run` masks secrets in the child's output, through pipes and a pseudo-terminal.

import Foundation
import Glibc
import Testing

@Suite("run: masking")
struct RunMaskingTests {
    static let concealed = "<concealed by vault>"

    /// A vault whose `odd`/`one` secret has characters every encoding changes.
    func oddWorkspace() throws -> (Workspace, String, String) {
        let w = try runWorkspace()
        let secret = "p@ss/w\"rd+=é ~<&>?"
        try w.set(secret, ["--service", "odd", "--account", "one"])
        return (w, secret, vaultReference("odd", "one"))
    }

    /// Spec: Spec/cli.md, "run", R-RUN-13.
    @Test func secretOnStdoutAndStderr_isMasked() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--env", "X=\(RunCommandTests.db)"],
            ["/bin/sh", "-c", #"echo "out $X end"; echo "err $X end" >&2"#]
        )
        #expect(result.stdout == "out \(Self.concealed) end\n")
        #expect(result.stderr == "err \(Self.concealed) end\n")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-14.
    @Test func secretSplitAcrossWrites_isMasked() throws {
        let w = try runWorkspace()
        // "hunter2-db" in two writes with a pause between, so they reach vaulttool as two reads.
        let result = try w.runChild(
            ["--env", "X=\(RunCommandTests.db)"],
            [
                "/bin/sh", "-c",
                "printf 'a hunt'; sleep 0.3; printf 'er2-db b\\n'; printf 'hunter2-'; sleep 0.3; printf 'dx\\n'",
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "a \(Self.concealed) b\nhunter2-dx\n")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-14.
    @Test func trailingPartialMatch_isWrittenAtTheEnd() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--env", "X=\(RunCommandTests.db)"],
            ["/bin/sh", "-c", "printf 'ends with hunter2-'"]
        )
        #expect(result.stdout == "ends with hunter2-")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-13.
    @Test func encodedForms_areMasked() throws {
        let (w, secret, reference) = try oddWorkspace()
        let script = """
            import base64, json, os, urllib.parse
            s = os.environ["S"]
            b = s.encode()
            for line in [
                base64.b64encode(b).decode(),
                base64.b64encode(b).decode().rstrip("="),
                base64.urlsafe_b64encode(b).decode(),
                base64.urlsafe_b64encode(b).decode().rstrip("="),
                urllib.parse.quote(s, safe=""),
                urllib.parse.quote(s, safe="").lower(),
                urllib.parse.quote_plus(s, safe=""),
                json.dumps(s),
                json.dumps(s, ensure_ascii=False),
                json.dumps(s, ensure_ascii=False).replace("/", "\\\\/"),
            ]:
                print("[" + line + "]")
            """
        let result = try w.runChild(["--env", "S=\(reference)"], ["/usr/bin/python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 10)
        for line in lines {
            #expect(
                line == "[\(Self.concealed)]" || line == "[\"\(Self.concealed)\"]",
                "not masked: \(line)"
            )
        }
        #expect(!result.stdout.contains(secret))
    }

    /// Spec: Spec/cli.md, "run", R-RUN-13.
    @Test func goStyleJSON_isMasked() throws {
        let (w, _, reference) = try oddWorkspace()
        // Go's encoding/json escapes <, > and & as \u003c, \u003e, \u0026.
        let result = try w.runChild(
            ["--env", "S=\(reference)"],
            [
                "/usr/bin/python3", "-c",
                #"import json,os; print(json.dumps(os.environ["S"], ensure_ascii=False).replace("<","\\u003c").replace(">","\\u003e").replace("&","\\u0026"))"#,
            ]
        )
        #expect(result.stdout == "\"\(Self.concealed)\"\n", "\(result.stderr)")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-13 (leftmost-longest).
    @Test func secretThatExtendsAnother_isMaskedWhole() throws {
        let w = try runWorkspace()
        try w.set("hunter2-db-admin", ["--service", "db", "--account", "admin"])
        let result = try w.runChild(
            ["--env", "A=\(RunCommandTests.db)", "--env", "B=\(vaultReference("db", "admin"))"],
            ["/bin/sh", "-c", #"echo "[$B] [$A] [$A-admin]""#]
        )
        #expect(result.stdout == "[\(Self.concealed)] [\(Self.concealed)] [\(Self.concealed)]\n", "\(result.stderr)")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-14: output that cannot begin a secret is not held back.
    @Test func promptWithoutNewline_isPassedOnAtOnce() throws {
        let w = try runWorkspace()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.path)
        process.arguments = [
            "run", "--vault", "v.vault", "--password-file", "pw", "--env", "X=\(RunCommandTests.db)", "--",
            "/bin/sh", "-c", "printf 'prompt> '; sleep 3; printf 'done\\n'",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: w.path)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = Tool.stateHome(w.path)
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        defer { process.waitUntilExit() }
        // The first bytes arrive while the child sleeps: well before 3 s, and without "done".
        let descriptor = output.fileHandleForReading.fileDescriptor
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 2500) == 1)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "prompt> ")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-13.
    @Test func noMasking_leavesOutputAsIs() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--no-masking", "--env", "X=\(RunCommandTests.db)"],
            ["/bin/sh", "-c", #"echo "$X""#]
        )
        #expect(result.stdout == RunCommandTests.dbSecret + "\n")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-12, R-RUN-14.
    @Test func largeOutput_isRelayedWhole() throws {
        let w = try runWorkspace()
        // 8 MiB of output with the secret every 64 KiB or so, across many pipe reads.
        let result = try w.runChild(
            ["--env", "X=\(RunCommandTests.db)"],
            [
                "/bin/sh", "-c",
                #"i=0; while [ $i -lt 128 ]; do head -c 65531 /dev/zero | tr '\0' 'a'; printf '%s' "$X"; i=$((i+1)); done"#,
            ]
        )
        #expect(result.status == 0)
        #expect(result.stdoutBytes.count == 128 * (65531 + Self.concealed.utf8.count))
        #expect(!result.stdout.contains(RunCommandTests.dbSecret))
    }

    /// Spec: Spec/cli.md, "run", R-RUN-11.
    @Test func terminal_childGetsPseudoTerminal_outputMasked() throws {
        let w = try runWorkspace()
        // A script file: script(1) takes one command line, and its quoting would eat "$X".
        try w.write("child.sh", "test -t 0 && test -t 1 && test -t 2 && echo all-terminals; tty; echo \"$X\"\n")
        let result = try Tool.runInTerminal(
            [
                "run", "--vault", "v.vault", "--password-file", "pw", "--env", "X=\(RunCommandTests.db)", "--",
                "/bin/sh", "child.sh",
            ],
            typed: "",
            in: w.path
        )
        #expect(result.stdout.contains("all-terminals"), "\(result.stdout)")
        #expect(result.stdout.contains("/dev/pts/"))
        #expect(result.stdout.contains(Self.concealed))
        #expect(!result.stdout.contains(RunCommandTests.dbSecret))
    }

    /// Spec: Spec/cli.md, "run", R-RUN-11.
    @Test func terminal_inputIsRelayed_andTerminalRestored() throws {
        let w = try runWorkspace()
        // The child reads a line from its pseudo-terminal; afterwards stty shows the outer
        // terminal back in cooked mode (icanon and echo on), as before vaulttool put it in raw mode.
        try w.write("child.sh", "read line; echo \"got:$line\"\n")
        let command = [
            Tool.path, "run", "--vault", "v.vault", "--password-file", "pw", "--env", "X=\(RunCommandTests.db)", "--",
            "/bin/sh", "child.sh",
        ]
        .map { "'\($0)'" }.joined(separator: " ")
        try w.write("outer.sh", "XDG_STATE_HOME='\(Tool.stateHome(w.path))' \(command)\nstty -a > stty.txt\n")
        let shell = "(sleep 0.6; printf 'typed-text\\r') | script -qec '/bin/sh outer.sh' /dev/null"
        let result = try Tool.runProgram(
            "/bin/sh",
            ["-c", shell],
            stdin: nil,
            environment: ProcessInfo.processInfo.environment,
            in: w.path
        )
        #expect(result.stdout.contains("got:typed-text"), "\(result.stdout)")
        let stty = try #require(w.contents("stty.txt"))
        #expect(stty.contains(" icanon"))
        #expect(stty.contains(" echo "))
    }

    /// Spec: Spec/cli.md, "run", R-RUN-11: the window size, at the start and when it changes.
    @Test func terminal_windowSize_isCopiedAndFollowed() throws {
        let w = try runWorkspace()
        // The child gives up after about 10 s, so a missed SIGWINCH fails the test instead of hanging it.
        try w.write(
            "child.sh",
            "stty size; trap 'stty size; exit 0' 28; echo ready; i=0\n"
                + "while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n"
        )
        let driver = """
            import fcntl, os, pty, select, struct, sys, termios, time
            tool, vault = sys.argv[1], sys.argv[2]
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(tool, [tool, "run", "--vault", vault, "--password-file", "pw", "--env", "X=" + sys.argv[3],
                                "--", "/bin/sh", "child.sh"])
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
            out, resized, deadline = b"", False, time.time() + 20
            while time.time() < deadline:
                if select.select([fd], [], [], 0.1)[0]:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out += chunk
                if not resized and b"ready" in out:
                    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
                    resized = True
            os.waitpid(pid, 0)
            sys.stdout.write(out.decode(errors="replace"))
            """
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = Tool.stateHome(w.path)
        let result = try Tool.runProgram(
            "/usr/bin/python3",
            ["-c", driver, Tool.path, "v.vault", RunCommandTests.db],
            stdin: nil,
            environment: environment,
            in: w.path
        )
        #expect(result.stdout.contains("30 100"), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("40 120"), "\(result.stdout) \(result.stderr)")
    }
}
