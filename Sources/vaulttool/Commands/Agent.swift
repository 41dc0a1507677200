// vaulttool agent: hold unlocked keys so that scripts pay one key derivation.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool agent [--foreground] [--socket <path>]`.
struct Agent: Command {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the vault agent, which holds unlocked keys for this user's commands.",
        discussion: """
            Starts the agent in the background and prints the shell line that points commands at it
            (eval "$(vaulttool agent)"); --foreground keeps it in the foreground (containers, systemd).
            The agent listens on a Unix socket in a 0700 directory and answers only processes of
            this user. It never sees a password: 'vaulttool unlock' hands it the keys. Keys are
            dropped by 'vaulttool lock', after --idle-timeout seconds unused (default 600) and
            --max-lifetime seconds after unlock (default 7200); 0 means no limit. Under systemd
            socket activation (LISTEN_FDS), --foreground serves the socket systemd passes. The
            socket is --socket, else VAULT_AGENT_SOCK, else $XDG_RUNTIME_DIR/vault-agent/agent.sock,
            else /tmp/vault-agent-<uid>/agent.sock.
            """
    )
    @Flag("--foreground", help: "Serve in the foreground until stopped.") var foreground: Bool
    @Option("--socket", valueName: "path", help: "The socket (default: see the discussion).") var socketOption: String?
    @Option("--idle-timeout", valueName: "seconds", help: "Drop keys unused this long (600).") var idleTimeout: String?
    @Option("--max-lifetime", valueName: "seconds", help: "Drop keys this long after unlock (7200).")
    var maxLifetime: String?
    @Flag("--status", help: "List the vaults the running agent holds.") var status: Bool
    @Flag("--stop", help: "Drop every key and stop the running agent.") var stop: Bool

    private(set) var socketPath = ""
    private(set) var limits = VaultAgent.Limits(idleTimeout: nil, maximumLifetime: nil)
    /// Whether `--idle-timeout` or `--max-lifetime` was given.
    var limitsGiven: Bool { idleTimeout != nil || maxLifetime != nil }

    mutating func validate() throws {
        socketPath = socketOption ?? VaultAgent.fromEnvironment()?.socketPath ?? VaultAgent.defaultSocketPath()
        guard socketPath.hasPrefix("/") else { throw UsageError("The agent socket must be an absolute path") }
        func seconds(_ text: String?, _ name: String, _ fallback: Int) throws -> Duration? {
            guard let value = Int(text ?? String(fallback)), value >= 0 else {
                throw UsageError("'\(name)' needs a number of seconds")
            }
            return value == 0 ? nil : .seconds(value)
        }
        limits = VaultAgent.Limits(
            idleTimeout: try seconds(idleTimeout, "--idle-timeout", 600),
            maximumLifetime: try seconds(maxLifetime, "--max-lifetime", 7200)
        )
        guard [foreground, status, stop].filter({ $0 }).count <= 1 else {
            throw UsageError("Give one of '--foreground', '--status' and '--stop'")
        }
    }

    func run() throws {
        let agent = VaultAgent(socketPath: socketPath)
        if status {
            let vaults = try reach { try agent.status() }
            if vaults.isEmpty { Output.out("The agent at \(socketPath) holds no keys.\n") }
            for vault in vaults {
                let left = vault.secondsLeft.map { "dropped in \($0) s" } ?? "no time limit"
                Output.out("\(vault.path)  (\(left))\n")
            }
        } else if stop {
            try reach { try agent.stop() }
            Output.out("Stopped the agent at \(socketPath).\n")
        } else if foreground {
            // A parent may have blocked or ignored signals (test runners, some supervisors);
            // SIGTERM, SIGINT and SIGHUP must stop the agent, which drops every key with it.
            var none = sigset_t()
            sigemptyset(&none)
            sigprocmask(SIG_SETMASK, &none, nil)
            for signal in [SIGTERM, SIGINT, SIGHUP] { Glibc.signal(signal, SIG_DFL) }
            try reach {
                try agent.serve(limits: limits) { Output.err("vaulttool agent: listening on \(socketPath)\n") }
            }
        } else {
            try startInBackground()
            // Single-quoted for sh: a socket path with a space or `$(...)` must stay one word, never code.
            let quoted = "'" + socketPath.replacing("'", with: "'\\''") + "'"
            Output.out("VAULT_AGENT_SOCK=\(quoted); export VAULT_AGENT_SOCK;\n")
        }
    }

    /// Runs this program again as `agent --foreground` in a new session, and waits until it
    /// answers (``VaultAgent/startInBackground(command:)``).
    ///
    /// An agent that already answers there is used when no limit was asked for, and refused
    /// when one was: it would keep its own limits (Spec/agent.md, section 2).
    private func startInBackground() throws {
        let agent = VaultAgent(socketPath: socketPath)
        if agent.isAnswering {
            guard !limitsGiven else {
                throw ToolError(
                    "an agent already runs at \(socketPath) and keeps its own limits: stop it first "
                        + "('vaulttool agent --stop'), or choose another socket with --socket",
                    exitCode: .failure
                )
            }
            Output.err("vaulttool agent: an agent already runs at \(socketPath); using it\n")
            return
        }
        var command = [try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")]
        command += ["agent", "--foreground", "--socket", socketPath]
        command += ["--idle-timeout", String(limits.idleTimeout?.components.seconds ?? 0)]
        command += ["--max-lifetime", String(limits.maximumLifetime?.components.seconds ?? 0)]
        try reach { try agent.startInBackground(command: command) }
    }

    /// Maps socket failures to one sentence and exit status 7.
    private func reach<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as VaultIOError where failure.code == .system {
            throw ToolError("no usable vault agent at \(socketPath): \(failure)", exitCode: .ioFailure)
        }
    }
}
