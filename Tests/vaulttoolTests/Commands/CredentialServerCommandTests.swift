// vaulttool tests: credential-server, driven by a client that connects as systemd does.

import Foundation
import Glibc
import Testing

@Suite("Credential server")
struct CredentialServerTests {
    /// A running `vaulttool credential-server`, its log in a file; stopped when released.
    ///
    /// Started with posix_spawn and reaped with waitpid, not with Foundation's Process: a child
    /// that execs another program (the `sh` of socket activation) is not tracked reliably there.
    final class RunningServer {
        let socket: String
        let logPath: String
        private(set) var pid: pid_t = 0
        /// The wait status, once reaped.
        private(set) var waitStatus: Int32?
        /// The listening socket made for socket activation, closed here once passed on.
        private var listener: Int32 = -1

        /// Starts the server on `run/creds.sock`, or, when `activated`, as systemd starts a
        /// socket-activated service: the listening socket `activated.sock` as descriptor 3,
        /// `LISTEN_FDS=1` and `LISTEN_PID` its own process ID (set by `sh` just before it execs
        /// the server, the only point where that ID is known).
        init(in w: Workspace, activated: Bool = false, listening: Bool = true) throws {
            logPath = w.file("server.log")
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = w.file(".state")
            environment["VAULT_AGENT_SOCK"] = nil
            let server = [
                Tool.path, "credential-server", "--config", w.file("creds.conf"), "--vault", w.file("v.vault"),
                "--password-file", w.file("pw"),
            ]
            var arguments: [String]
            if activated {
                socket = w.file("activated.sock")
                listener = try Self.listen(at: socket, listening: listening)
                arguments = ["/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" \"$@\""] + server
            } else {
                let directory = w.file("run")
                mkdir(directory, 0o700)
                socket = directory + "/creds.sock"
                arguments = server + ["--socket", socket]
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_APPEND, 0)
            if listener >= 0 { posix_spawn_file_actions_adddup2(&actions, listener, 3) }
            var argv = arguments.map { strdup($0) } + [nil]
            var envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            let result = posix_spawn(&pid, arguments[0], &actions, nil, &argv, &envp)
            try #require(result == 0, "posix_spawn: \(String(cString: strerror(result)))")
            if listener >= 0 {
                close(listener)
                listener = -1
            }
            // The server logs this line once it listens.
            for _ in 0..<200 where !log.contains("serving") && isRunning { usleep(25_000) }
        }

        /// A stream socket listening on `path`, as systemd's `ListenStream=` makes it.
        private static func listen(at path: String, listening: Bool = true) throws -> Int32 {
            let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0 && (!listening || Glibc.listen(descriptor, 16) == 0))
            return descriptor
        }

        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        var isRunning: Bool {
            guard waitStatus == nil else { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            waitStatus = status
            return false
        }

        /// Stops the server with SIGTERM; its exit status, or `nil` when a signal ended it.
        func stop() -> Int32? {
            if isRunning {
                kill(pid, SIGTERM)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                waitStatus = status
            }
            guard let status = waitStatus, status & 0x7F == 0 else { return nil }
            return (status >> 8) & 0xFF
        }

        deinit { _ = stop() }
    }

    /// Connects to `socket` as systemd's `read_full_file_full` does: a stream socket bound to
    /// the abstract `name` (`nil`: not bound), connected, its write side shut down, then read
    /// to end of file.
    static func fetch(_ socket: String, boundTo name: [UInt8]?) throws -> [UInt8] {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        func withAddress<T>(_ path: [UInt8], _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
            }
        }
        if let name {
            #expect(withAddress(name) { bind(descriptor, $0, $1) } == 0, "bind: \(errno)")
        }
        let connected = withAddress(Array(socket.utf8)) { Glibc.connect(descriptor, $0, $1) }
        try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")
        shutdown(descriptor, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            try #require(count >= 0, "recv: \(String(cString: strerror(errno)))")
            if count == 0 { return received }
            received += buffer[..<count]
        }
    }

    /// ``fetch(_:boundTo:)`` as systemd asks for `credential` of `unit`: a new random name each time.
    static func fetch(_ socket: String, unit: String, credential: String) throws -> [UInt8] {
        try fetch(socket, boundTo: systemdName(unit, credential))
    }

    /// systemd's address for `unit` and `credential`: NUL, a random 64-bit number in hex, `/unit/`…
    static func systemdName(_ unit: String, _ credential: String) -> [UInt8] {
        [0] + Array("\(String(UInt64.random(in: 1...UInt64.max), radix: 16))/unit/\(unit)/\(credential)".utf8)
    }

    /// A workspace with `v.vault`, the item `db`/`app` holding `secret`, and a config naming it.
    static func workspace(secret: [UInt8]) throws -> Workspace {
        let w = try Workspace()
        try w.makeVault()
        try setSecret(secret, in: w)
        try w.write(
            "creds.conf",
            """
            # unit            credential    reference
            myapp.service     db-password   vault://db/app

            other.service\tapi-token\tvault://api/other
            """
        )
        return w
    }

    static func setSecret(_ secret: [UInt8], in w: Workspace) throws {
        let set = try Tool.run(
            ["set", "--password-file", "pw", "--service", "db", "--account", "app", "v.vault"],
            stdin: secret,
            environment: ["XDG_STATE_HOME": w.file(".state")],
            in: w.path
        )
        #expect(set.status == 0, "\(set.stderr)")
    }

    // MARK: - Serving

    /// Spec/agent.md 7.1 and R-CS-3, R-CS-8: the secret byte for byte, binary included; logged without it.
    @Test func servesTheSecretByteForByte_toTheUnitAndCredentialOfTheConfig() throws {
        let secret: [UInt8] = [0x00, 0xFF, 0x0A, 0x0D, 0x80] + Array("binary-s3cret".utf8) + [0x00, 0x7F]
        let w = try Self.workspace(secret: secret)
        let server = try RunningServer(in: w)
        let got = try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password")
        #expect(got == secret)
        #expect(server.log.contains("served myapp.service db-password vault://db/app (\(secret.count) bytes)"))
        #expect(!server.log.contains("binary-s3cret"))
    }

    /// R-CS-3: exact names only; R-CS-8: each refusal is logged.
    @Test func unknownUnitOrCredential_getsNothing_andIsLogged() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let server = try RunningServer(in: w)
        #expect(try Self.fetch(server.socket, boundTo: Self.systemdName("intruder.service", "db-password")) == [])
        #expect(try Self.fetch(server.socket, boundTo: Self.systemdName("myapp.service", "api-token")) == [])
        // A unit of the config asking for another unit's credential gets nothing either.
        #expect(try Self.fetch(server.socket, boundTo: Self.systemdName("other.service", "db-password")) == [])
        let log = server.log
        #expect(log.contains("refused intruder.service db-password: not in the config"))
        #expect(log.contains("refused myapp.service api-token: not in the config"))
        #expect(log.contains("refused other.service db-password: not in the config"))
        // Still serving afterwards.
        #expect(try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") != [])
    }

    /// R-CS-5: an unbound peer or another shape of abstract name gets nothing.
    @Test func peerWithoutSystemdAddress_getsNothing() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let server = try RunningServer(in: w)
        #expect(try Self.fetch(server.socket, boundTo: nil) == [])
        // An abstract name in another shape, or one that smuggles a fifth part, is refused too.
        #expect(try Self.fetch(server.socket, boundTo: [0] + Array("myapp.service/db-password".utf8)) == [])
        #expect(try Self.fetch(server.socket, boundTo: [0] + Array("ab/unit/myapp.service/db-password/x".utf8)) == [])
        let log = server.log
        #expect(log.contains("refused a connection with no address"))
        #expect(log.contains("refused a connection whose address is not"))
        #expect(!log.contains("served"))
    }

    /// R-CS-9: the newest generation is read for every request.
    @Test func rotatedSecret_isServedAtTheNextConnection() throws {
        let w = try Self.workspace(secret: Array("old-s3cret".utf8))
        let server = try RunningServer(in: w)
        // A new random part for each connection, as systemd binds: a name is free again only
        // once the server has closed its end too.
        #expect(
            try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") == Array("old-s3cret".utf8)
        )
        try Self.setSecret(Array("new-s3cret".utf8), in: w)
        #expect(
            try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") == Array("new-s3cret".utf8)
        )
        let log = server.log
        #expect(!log.contains("old-s3cret") && !log.contains("new-s3cret"))
    }

    /// R-CS-2 parses references only; R-CS-8 logs why an unresolved one got nothing.
    @Test func missingItem_getsNothing_andTheLogSaysWhy() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let server = try RunningServer(in: w)
        #expect(try Self.fetch(server.socket, boundTo: Self.systemdName("other.service", "api-token")) == [])
        #expect(server.log.contains("failed other.service api-token vault://api/other: "))
    }

    /// Spec/cli.md 4.22 (socket activation) and R-CS-6: a user neither root nor the server's gets nothing.
    @Test func socketActivation_servesThePassedSocket_andRefusesOtherUsers() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let server = try RunningServer(in: w, activated: true)
        #expect(
            try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") == Array("s3cret-db".utf8)
        )
        #expect(server.log.contains("serving 2 credential(s) of \(w.file("v.vault")) on the socket systemd passed"))
        // A user that is neither root nor the server's gets nothing, whatever name it binds.
        let python = "/usr/bin/python3"
        if getuid() == 0, FileManager.default.isExecutableFile(atPath: python),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        {
            chmod(server.socket, 0o666)
            let client = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(b"\\0" + b"1f2e3d/unit/myapp.service/db-password")
                s.connect(sys.argv[1])
                s.shutdown(socket.SHUT_WR)
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    sys.stdout.buffer.write(chunk)
                """
            let other = try Tool.runProgram(
                "/usr/bin/setpriv",
                ["--reuid", "65534", "--regid", "65534", "--clear-groups", python, "-c", client, server.socket],
                stdin: nil,
                environment: ["PATH": "/usr/bin:/bin"],
                in: nil
            )
            #expect(other.status == 0, "\(other.stderr)")
            #expect(other.stdoutBytes == [])
            #expect(server.log.contains("refused a connection from user 65534"))
        }
        #expect(server.stop() == 0)
        // The socket belongs to whoever passed it: the server leaves it in place.
        #expect(FileManager.default.fileExists(atPath: server.socket))
    }

    // MARK: - Stopping

    /// Spec/agent.md 7.3: SIGTERM ends the server with status 0 and removes the socket it made.
    /// R-CS-7: a passed socket that cannot accept (not listening) stops the server with an error
    /// instead of spinning on it (found by an outside review: 96 % of a core, nothing logged).
    @Test func aPassedSocketThatCannotAccept_stopsTheServer() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let server = try RunningServer(in: w, activated: true, listening: false)
        for _ in 0..<200 where server.isRunning { usleep(25_000) }
        #expect(!server.isRunning)
        #expect(server.log.contains("Error: The socket cannot accept connections (accept: "), "\(server.log)")
    }

    @Test func sigterm_stopsWithStatusZero_andRemovesTheSocket() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let server = try RunningServer(in: w)
        #expect(FileManager.default.fileExists(atPath: server.socket))
        #expect(server.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: server.socket))
        #expect(server.log.contains("stopped"))
    }

    /// R-CS-7: a peer that never reads does not hold up the next one, and gets the secret whole
    /// or not at all, never a cut one (found by an outside review: it got 219,264 of 1 MiB, then
    /// an end of file that systemd would have kept as the credential).
    @Test func peerThatNeverReads_doesNotStopTheServer_andGetsAllOrNothing() throws {
        // 4 MiB is too large to send; 900 KiB fills the socket buffers of a peer that never reads.
        let secret = [UInt8](repeating: 0x61, count: 900 << 10)
        let w = try Self.workspace(secret: secret)
        let server = try RunningServer(in: w)
        let stalled = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(stalled) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Self.systemdName("myapp.service", "db-password")
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(stalled, $0, socklen_t(MemoryLayout<sa_family_t>.size + name.count))
            }
        }
        #expect(bound == 0)
        var target = sockaddr_un()
        target.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &target.sun_path) { $0.copyBytes(from: Array(server.socket.utf8)) }
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(stalled, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(connected == 0)
        let start = ContinuousClock.now
        let got = try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password")
        #expect(got == secret)
        #expect(ContinuousClock.now - start < .seconds(9))
        // The stalled peer now reads what it was given: all of it (as root, the queue is made
        // large enough), or nothing with a refusal in the log; never a part.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(stalled, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        if getuid() == 0 {
            #expect(received == secret)
        } else {
            #expect(received == secret || (received.isEmpty && server.log.contains("more than this socket can queue")))
        }
    }

    // MARK: - The socket

    /// Spec/cli.md 4.22 (socket): the agent's socket rules (Spec/agent.md, section 2).
    @Test func staleSocketFile_isReplaced_aLiveServerOrAFile_isNot_andAnOpenDirectory_isRefused() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        // A socket file that nobody listens on, as a killed server leaves it.
        mkdir(w.file("run"), 0o700)
        let stale = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(w.file("run/creds.sock").utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(stale)
        #expect(bound == 0)
        let server = try RunningServer(in: w)
        #expect(
            try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") == Array("s3cret-db".utf8)
        )
        let arguments = ["credential-server", "--config", "creds.conf", "--vault", "v.vault", "--password-file", "pw"]
        let second = try w.run(arguments + ["--socket", server.socket])
        #expect(second.status == 7)
        #expect(second.stderr.contains("another server answers there"), "\(second.stderr)")
        #expect(
            try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") == Array("s3cret-db".utf8)
        )
        // A path that is not a socket is never removed.
        try w.write("run/notes", "keep me")
        let notSocket = try w.run(arguments + ["--socket", w.file("run/notes")])
        #expect(notSocket.status == 7)
        #expect(notSocket.stderr.contains("exists and is not a socket"), "\(notSocket.stderr)")
        #expect(try String(contentsOfFile: w.file("run/notes"), encoding: .utf8) == "keep me")
        // A directory that others can enter is refused (Spec/agent.md, section 2).
        chmod(w.path, 0o755)
        let open = try w.run(arguments + ["--socket", w.file("creds.sock")])
        #expect(open.status == 7)
        #expect(open.stderr.contains("must be a directory of this user with mode 0700"), "\(open.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.file("creds.sock")))
    }

    // MARK: - The config

    /// R-CS-1: a config that its group or other users can change is refused at start.
    @Test func configWritableByOthers_orGroup_isRefused() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        for mode: mode_t in [0o666, 0o620] {
            chmod(w.file("creds.conf"), mode)
            let result = try w.run(
                ["credential-server", "--config", "creds.conf", "--password-file", "pw", "--socket", w.file("s.sock")]
            )
            #expect(result.status == 1)
            #expect(result.stderr.contains("config file 'creds.conf' is refused: mode \(String(mode, radix: 8))"))
            #expect(!FileManager.default.fileExists(atPath: w.file("s.sock")))
        }
    }

    /// R-CS-2 and R-CS-4: mistakes stop the start with exit 64 and the line number.
    @Test func configMistakes_areRefusedAtStart_naming_theLine() throws {
        let w = try Workspace()
        let cases: [(String, String)] = [
            ("myapp.service db-password https://db/app\n", "line 1: the reference is invalid"),
            ("# ok\n\nmyapp.service db-password\n", "line 3: expected UNIT CREDENTIAL-ID REFERENCE"),
            ("myapp.target x vault://db/app\n", "line 1: 'myapp.target' is not a unit that takes LoadCredential="),
            ("my/app.service x vault://db/app\n", "line 1: 'my/app.service' is not a unit name"),
            ("a.service x vault://a/b\na.service x vault://a/c\n", "line 2: a.service x is already given on line 1"),
            ("a.service x vault://db/\u{9B}app\n", "line 1: the line holds a character other than printable ASCII"),
            ("# a comment with \u{1B}[2J\na.service x vault://a/b\n", "line 1: the line holds a character other"),
            (
                String(repeating: "a", count: 70) + ".service 12345678 vault://a/b\n",
                "line 1: the unit and credential ID have 86 bytes together; systemd's socket address leaves room for 84",
            ),
        ]
        for (text, expected) in cases {
            try w.write("bad.conf", text)
            let result = try w.run(
                ["credential-server", "--config", "bad.conf", "--password-file", "pw", "--socket", w.file("s.sock")]
            )
            #expect(result.status == 64, "\(text)")
            #expect(result.stderr.contains("config file 'bad.conf', " + expected), "\(result.stderr)")
        }
    }

    /// R-CS-2's `[CR] LF`: a config written on Windows reads as the same lines; a FIFO named as
    /// the config is refused at once instead of blocking the start (found by an outside review).
    @Test func crlfLines_areRead_andAFIFOConfig_isRefusedWithoutBlocking() throws {
        let w = try Self.workspace(secret: Array("crlf-secret".utf8))
        try w.write("creds.conf", "# windows\r\nmyapp.service db-password vault://db/app\r\n")
        let server = try RunningServer(in: w)
        #expect(
            try Self.fetch(server.socket, unit: "myapp.service", credential: "db-password") == Array("crlf-secret".utf8)
        )
        #expect(mkfifo(w.file("fifo.conf"), 0o600) == 0)
        let fifo = try w.run(
            ["credential-server", "--config", "fifo.conf", "--password-file", "pw", "--socket", w.file("f.sock")]
        )
        #expect(fifo.status != 0 && fifo.stderr.contains("fifo.conf"), "\(fifo.stderr)")
    }

    @Test func noSocketAndNoSocketActivation_isAUsageError() throws {
        let w = try Self.workspace(secret: Array("s3cret-db".utf8))
        let result = try w.run(["credential-server", "--config", "creds.conf", "--password-file", "pw"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Give '--socket', or start it by systemd socket activation"))
    }

    // MARK: - The unit files

    /// `systemd-analyze verify` on the example units (skipped where systemd is not installed).
    @Test func exampleUnitFiles_passSystemdAnalyzeVerify() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else { return }
        let result = try Tool.runProgram(
            "/bin/sh",
            [Tool.packageRoot.appendingPathComponent("scripts/verify-systemd-units.sh").path],
            stdin: nil,
            environment: ProcessInfo.processInfo.environment,
            in: nil
        )
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
