// vaulttool tests: `vaulttool run` as a process supervisor: statuses, signals, memfds, exec in place.

import Foundation
import Glibc
import Testing

@Suite("run: the child process")
struct RunProcessTests {
    let db = RunCommandTests.db
    let secret = RunCommandTests.dbSecret

    /// Spec: Spec/cli.md, "run", 4.21.5.
    @Test func childExitStatus_isReturned() throws {
        let w = try runWorkspace()
        #expect(try w.runChild(["--env", "X=\(db)"], ["/bin/sh", "-c", "exit 42"]).status == 42)
        #expect(try w.runChild(["--env", "X=\(db)", "--no-masking"], ["/bin/sh", "-c", "exit 43"]).status == 43)
    }

    /// Spec: Spec/cli.md, "run", 4.21.5.
    @Test func childKilledBySignal_is128PlusN() throws {
        let w = try runWorkspace()
        #expect(try w.runChild(["--env", "X=\(db)"], ["/bin/sh", "-c", "kill -KILL $$"]).status == 137)
        #expect(try w.runChild(["--env", "X=\(db)"], ["/bin/sh", "-c", "kill -USR1 $$"]).status == 128 + SIGUSR1)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-7.
    @Test func commandNotFound_127_notExecutable_126() throws {
        let w = try runWorkspace()
        let missing = try w.runChild(["--env", "X=\(db)"], ["no-such-command-\(UUID().uuidString)"])
        #expect(missing.status == 127)
        #expect(missing.stderr.hasPrefix("Error: "))
        try w.write("script.txt", "echo hi\n")  // mode 0644: not executable
        let refused = try w.runChild(["--env", "X=\(db)"], ["./script.txt"])
        #expect(refused.status == 126, "\(refused.stderr)")
        let directory = try w.runChild(["--env", "X=\(db)"], ["/tmp"])
        #expect(directory.status == 126)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-7.
    @Test func scriptWithoutShebang_runsWithSh_asExecvp() throws {
        let w = try runWorkspace()
        try w.write("plain", "printf %s \"$X\" > value\n")
        chmod(w.file("plain"), 0o755)
        let result = try w.runChild(["--env", "X=\(db)"], ["./plain"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == secret)
    }

    /// Starts `vaulttool run` in `w` with `command`, waits until the child wrote `ready`, then
    /// sends `signal` to vaulttool (not to the child) and returns vaulttool's exit status.
    private func signalSupervisor(_ w: Workspace, _ signal: Int32, command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.path)
        process.arguments = [
            "run", "--vault", "v.vault", "--password-file", "pw", "--env", "X=\(db)", "--", "/bin/sh",
            "-c", command,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: w.path)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = Tool.stateHome(w.path)
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        for _ in 0..<200 where w.contents("ready") == nil { usleep(25_000) }
        #expect(w.contents("ready") != nil, "the child did not start")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Spec: Spec/cli.md, "run", R-RUN-15.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGUSR1])
    func signalToVaulttool_isForwardedToChild(signal: Int32) throws {
        let w = try runWorkspace()
        let status = try signalSupervisor(
            w,
            signal,
            command: "trap 'echo caught > marker; exit 7' \(signal); echo > ready; while :; do sleep 0.05; done"
        )
        #expect(w.contents("marker") == "caught\n")
        #expect(status == 7)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-15: Ctrl-C at the terminal reaches a child of vaulttool's
    /// process group (from the kernel), and vaulttool, which gets it too, lives on and ends with
    /// the child's status. (That vaulttool does not send it a second time cannot be observed
    /// reliably: a signal arriving while the same one is pending merges with it.)
    @Test func ctrlCAtTerminal_reachesPipedChild_vaulttoolEndsWithItsStatus() throws {
        let w = try runWorkspace()
        try w.write(
            "child.sh",
            "trap 'echo INT >> count' INT; echo > ready; i=0\n"
                + "while [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done\n"
        )
        let command = [
            Tool.path, "run", "--vault", "v.vault", "--password-file", "pw", "--env", "X=\(db)", "--", "/bin/sh",
            "child.sh",
        ]
        .map { "'\($0)'" }.joined(separator: " ")
        // Output to files: the child has pipes, and shares vaulttool's foreground process group.
        // The outer shell is in that group too: it traps SIGINT (a handler, not inherited) to live on.
        try w.write(
            "outer.sh",
            "trap : INT; XDG_STATE_HOME='\(Tool.stateHome(w.path))' \(command) > out.txt 2>&1; echo $? > status\n"
        )
        let feed = "while [ ! -e ready ]; do sleep 0.05; done; sleep 0.3; printf '\\003'; sleep 3"
        let result = try Tool.runProgram(
            "/bin/sh",
            ["-c", "(\(feed)) | script -qec '/bin/sh outer.sh' /dev/null"],
            stdin: nil,
            environment: ProcessInfo.processInfo.environment,
            in: w.path
        )
        #expect(w.contents("count") == "INT\n", "\(result.stdout) \(w.contents("out.txt") ?? "")")
        // vaulttool caught its own SIGINT and ended with the child's status.
        #expect(w.contents("status") == "0\n")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-15, 4.21.5.
    @Test func signalUntrapped_endsChild_128PlusN() throws {
        let w = try runWorkspace()
        let status = try signalSupervisor(w, SIGTERM, command: "echo > ready; exec sleep 30")
        #expect(status == 128 + SIGTERM)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-6.
    @Test func fileSecret_isSealedMemfd_readableTwice_neverOnDisk() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--file", "F=\(db)"],
            [
                "/bin/sh", "-c",
                #"cat "$F" > one; cat "$F" > two; readlink "$F" > link; printf %s "$F" > path; "#
                    + #"if printf x >> "$F" 2>/dev/null; then echo writable > sealed; fi"#,
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("one") == secret)
        #expect(w.contents("two") == secret)
        #expect(w.contents("link")?.hasPrefix("/memfd:F") == true, "\(w.contents("link") ?? "")")
        #expect(w.contents("path")?.hasPrefix("/proc/self/fd/") == true)
        #expect(w.contents("sealed") == nil)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-6, R-RUN-8.
    @Test func fileSecret_withNoMasking_isInheritedThroughExec() throws {
        let w = try runWorkspace()
        let result = try w.runChild(["--no-masking", "--file", "F=\(db)"], ["/bin/sh", "-c", #"cat "$F"; cat "$F""#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == secret + secret)
    }

    /// Spec: Spec/cli.md, "run", R-RUN-7, R-RUN-10.
    @Test func secrets_notInCmdlines_norInVaulttoolEnviron() throws {
        let w = try runWorkspace()
        let result = try w.runChild(
            ["--env", "TOKEN=\(RunCommandTests.api)"],
            [
                "/bin/sh", "-c",
                #"tr '\0' '\n' < /proc/$PPID/environ > parent-environ; tr '\0' ' ' < /proc/$PPID/cmdline > parent-cmdline; "#
                    + #"tr '\0' ' ' < /proc/$$/cmdline > child-cmdline; printf %s "$TOKEN" > value"#,
            ],
            environment: ["DB_PASSWORD": db]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(w.contents("value") == RunCommandTests.apiSecret)
        let parentEnviron = try #require(w.contents("parent-environ"))
        let parentCmdline = try #require(w.contents("parent-cmdline"))
        let childCmdline = try #require(w.contents("child-cmdline"))
        // The reads worked: vaulttool's own command line and its (reference-only) environment.
        #expect(parentCmdline.contains(" run "))
        #expect(parentEnviron.contains("DB_PASSWORD=\(db)"))
        for text in [parentEnviron, parentCmdline, childCmdline] {
            #expect(!text.contains(secret))
            #expect(!text.contains(RunCommandTests.apiSecret))
        }
    }

    /// Spec: Spec/cli.md, "run", R-RUN-8, R-RUN-9.
    @Test func noMasking_execsInPlace_supervisedOtherwise() throws {
        let w = try runWorkspace()
        let inPlace = try w.runChild(
            ["--no-masking", "--env", "X=\(db)"],
            ["/bin/sh", "-c", #"echo $PPID > ppid; printf %s "$X""#]
        )
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        #expect(inPlace.stdout == secret)
        #expect(w.contents("ppid") == "\(getpid())\n")
        let supervised = try w.runChild(
            ["--env", "X=\(db)"],
            ["/bin/sh", "-c", #"echo $PPID > ppid; printf %s "$X""#]
        )
        #expect(supervised.stdout == "<concealed by vault>")
        #expect(w.contents("ppid") != "\(getpid())\n")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-8.
    @Test func noReference_execsInPlace() throws {
        let w = try runWorkspace()
        let result = try w.runChild([], ["/bin/sh", "-c", "echo $PPID"])
        #expect(result.stdout == "\(getpid())\n")
    }

    /// Spec: Spec/cli.md, "run", R-RUN-9.
    @Test func stdin_reachesChild() throws {
        let w = try runWorkspace()
        let result = try w.run(
            ["run", "--vault", "v.vault", "--password-file", "pw", "--env", "X=\(db)", "--", "/bin/cat"],
            stdin: "line one\nline two\n"
        )
        #expect(result.stdout == "line one\nline two\n")
    }
}
