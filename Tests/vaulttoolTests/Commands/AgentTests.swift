// vaulttool tests: the agent, unlock and lock, driving the built binary.

import Foundation
import Glibc
import Testing

@Suite("Agent commands")
struct AgentCommandTests {
    /// A running `vaulttool agent --foreground`, stopped when released.
    final class RunningAgent {
        let socket: String
        let process = Process()

        init(in w: Workspace, options: [String] = []) throws {
            let directory = w.file("run")
            mkdir(directory, 0o700)
            socket = directory + "/vault-agent/agent.sock"
            process.executableURL = URL(fileURLWithPath: Tool.path)
            process.arguments = ["agent", "--foreground", "--socket", socket] + options
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { usleep(50_000) }
        }

        var environment: [String: String] { ["VAULT_AGENT_SOCK": socket] }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    @Test func unlockOnce_thenCommandsNeedNoCredential_untilLock() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let agent = try RunningAgent(in: w)
        let env = agent.environment
        // Without the agent holding the vault, a command without credentials cannot open it.
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: env).status == 64)
        let unlock = try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: env)
        #expect(unlock.status == 0, "\(unlock.stderr)")
        for _ in 0..<3 {
            let get = try w.run(["get", "--service", "db", "v.vault"], environment: env)
            #expect(get.stdout == "s3cret", "\(get.stderr)")
        }
        let set = try w.run(["set", "--service", "web", "--account", "a", "v.vault"], stdin: "w1", environment: env)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try w.run(["get", "--password-file", "pw", "--service", "web", "v.vault"]).stdout == "w1")
        let status = try w.run(["agent", "--status", "--socket", agent.socket])
        #expect(status.stdout.contains("v.vault"))
        #expect(!status.stdout.contains("s3cret"))
        let lock = try w.run(["lock", "v.vault"], environment: env)
        #expect(lock.stdout == "The agent dropped the keys of 1 vault.\n")
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: env).status == 64)
        // Explicit credentials still work and are preferred.
        #expect(
            try w.run(["get", "--password-file", "pw", "--service", "db", "v.vault"], environment: env).status == 0
        )
    }

    @Test func idleTimeout_dropsKeys() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let agent = try RunningAgent(in: w, options: ["--idle-timeout", "1"])
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        usleep(1_500_000)
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: agent.environment).status == 64)
    }

    @Test func keysThatNoLongerOpenTheVault_fallBackToCredentials() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("one", ["--service", "db", "--account", "app"])
        let agent = try RunningAgent(in: w)
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        // Another vault with a new master key takes the path: the held keys must not be used.
        try FileManager.default.removeItem(atPath: w.file("v.vault"))
        try w.makeVault()
        let get = try w.run(["get", "--service", "db", "v.vault"], environment: agent.environment)
        #expect(get.status == 64)
    }

    @Test func withoutAnAgent_unlockAndLockSayWhatToDo() throws {
        let w = try Workspace()
        try w.makeVault()
        let unlock = try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: ["VAULT_AGENT_SOCK": ""])
        #expect(unlock.status == 64)
        #expect(unlock.stderr.contains("vaulttool agent"))
        let gone = try w.run(
            ["unlock", "--password-file", "pw", "v.vault"],
            environment: ["VAULT_AGENT_SOCK": w.file("none.sock")]
        )
        #expect(gone.status == 7)
        // A command falls back to its credentials, with a note.
        let get = try w.run(
            ["list", "--password-file", "pw", "v.vault"],
            environment: ["VAULT_AGENT_SOCK": w.file("none.sock")]
        )
        #expect(get.status == 0)
    }

    /// The git credential helper reads through the agent: after one unlock it needs no credential.
    @Test func credentialHelper_usesTheAgent() throws {
        let w = try Workspace()
        try w.makeVault()
        let stored = try w.run(
            ["credential-helper", "git", "--vault", "v.vault", "--password-file", "pw", "store"],
            stdin: "protocol=https\nhost=git.example.com\nusername=bob\npassword=tok-123\n\n"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let agent = try RunningAgent(in: w)
        let request = "protocol=https\nhost=git.example.com\nusername=bob\n\n"
        let get = ["credential-helper", "git", "--vault", "v.vault", "get"]
        #expect(try w.run(get, stdin: request, environment: agent.environment).status != 0)
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        let found = try w.run(get, stdin: request, environment: agent.environment)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("password=tok-123\n"))
    }

    /// Under systemd socket activation the agent serves the socket it is handed on descriptor 3.
    @Test func socketActivation_servesTheInheritedSocket() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        mkdir(w.file("run"), 0o700)
        let socket = w.file("run/activated.sock")
        // What systemd does: bind and listen, then exec the service with LISTEN_PID and LISTEN_FDS.
        try w.write(
            "activate.py",
            """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(8)
            pid = os.fork()
            if pid == 0:
                null = os.open("/dev/null", os.O_RDWR)
                for fd in (0, 1, 2): os.dup2(null, fd)
                if s.fileno() != 3: os.dup2(s.fileno(), 3)
                os.set_inheritable(3, True)
                os.closerange(4, 65536)  # nothing else, as systemd passes nothing else
                env = dict(os.environ, LISTEN_PID=str(os.getpid()), LISTEN_FDS="1")
                os.execve(sys.argv[2], [sys.argv[2], "agent", "--foreground", "--socket", "/nonexistent/unused.sock"], env)
            print(pid, flush=True)
            """
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", w.file("activate.py"), socket, Tool.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let started = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let pid = try #require(Int32(started.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGTERM) }
        let env = ["VAULT_AGENT_SOCK": socket]
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: env).status == 0)
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: env).stdout == "s3cret")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/unused.sock"))
    }

    /// Writers through the agent keep the library's locking: concurrent sets from several
    /// processes all land.
    @Test func concurrentWritesThroughTheAgent_allLand() throws {
        let w = try Workspace()
        try w.makeVault()
        let agent = try RunningAgent(in: w)
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        let writers = 4
        let perWriter = 5
        let directory = w.path
        let environment = agent.environment
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for n in 0..<perWriter {
                let result = try? Tool.run(
                    ["set", "--service", "w\(writer)", "--account", "n\(n)", "v.vault"],
                    stdin: Array("secret \(writer)/\(n)".utf8),
                    environment: environment,
                    in: directory
                )
                #expect(result?.status == 0, "\(result?.stderr ?? "")")
            }
        }
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        let items = try #require(try list.json()["items"] as? [Any])
        #expect(items.count == writers * perWriter)
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }

    /// After a rekey the agent holds the new keys, not the revoked ones.
    @Test func rekey_givesTheAgentTheNewKeys() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let agent = try RunningAgent(in: w)
        let env = agent.environment
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: env).status == 0)
        let rekey = try w.run(["rekey", "--password-file", "pw", "v.vault"], environment: env)
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stderr.contains("the agent dropped the old keys"))
        let get = try w.run(["get", "--service", "db", "v.vault"], environment: env)
        #expect(get.stdout == "s3cret", "\(get.stderr)")
        #expect(!get.stderr.contains("no longer open"))
    }

    /// A device secret asked for that the agent's keys lack: the credentials are used instead.
    @Test func deviceSecretOption_withKeysWithoutIt_usesTheCredentials() throws {
        let w = try Workspace()
        try w.makeVault()
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: w.file("ds")))
        #expect(chmod(w.file("ds"), 0o600) == 0)
        try w.set(
            "bound",
            [
                "--service", "b", "--account", "a", "--device-secret-file", "ds",
                "--accessibility", "whenUnlockedThisDeviceOnly",
            ]
        )
        let agent = try RunningAgent(in: w)
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: agent.environment).status == 0)
        let get = try w.run(
            ["get", "--password-file", "pw", "--device-secret-file", "ds", "--service", "b", "v.vault"],
            environment: agent.environment
        )
        #expect(get.stdout == "bound", "\(get.stderr)")
        let viaAgent = try w.run(
            ["get", "--device-secret-file", "ds", "--service", "b", "v.vault"],
            environment: agent.environment
        )
        #expect(viaAgent.stderr.contains("without a device secret"), "\(viaAgent.stderr)")
    }
}
