// vault agent: the public face of the agent, for vaulttool and for apps alike.

import Glibc
import VaultFormat

/// A vault agent, reached at its socket: a process of this user that holds unlocked keys, so
/// that later programs open a vault without the key derivation.
///
/// The agent never sees a password: a program that opened the vault hands it the keys
/// (``add(_:)``), and later programs ask for them (``keys(forVaultAt:vaultID:)``) and open
/// with ``Vault/init(path:keys:configuration:)``. It answers only processes of the same user.
///
/// ```swift
/// if let agent = VaultAgent.fromEnvironment(), let vaultID = try? VaultFileReader(path: path).header().vaultID,
///     let keys = try agent.keys(forVaultAt: path, vaultID: vaultID)
/// {
///     let vault = try Vault(path: path, keys: keys, configuration: .standard)
/// }
/// ```
///
/// Failures are ``VaultIOError``s: `system` (with the step and errno) when the socket cannot be
/// reached, `agentRefused` when the agent refuses or answers in a way this version does not know.
///
/// Spec: Spec/agent.md.
public struct VaultAgent: Sendable {
    /// The agent's socket.
    public let socketPath: String

    /// The agent listening (or to listen) at `socketPath`, an absolute path.
    public init(socketPath: String) { self.socketPath = socketPath }

    /// The agent `VAULT_AGENT_SOCK` names, or `nil` when it is unset or empty.
    ///
    /// - Parameter environment: The variables to read; `nil` reads this process's environment.
    ///
    /// Spec: Spec/agent.md, section 1.
    public static func fromEnvironment(_ environment: [String: String]? = nil) -> VaultAgent? {
        guard let path = variables(["VAULT_AGENT_SOCK"], environment)["VAULT_AGENT_SOCK"], !path.isEmpty else {
            return nil
        }
        return VaultAgent(socketPath: path)
    }

    /// The default socket: `$XDG_RUNTIME_DIR/vault-agent/agent.sock`, else
    /// `/tmp/vault-agent-<uid>/agent.sock`.
    ///
    /// - Parameter environment: The variables to read; `nil` reads this process's environment.
    public static func defaultSocketPath(environment: [String: String]? = nil) -> String {
        AgentSocket.defaultPath(environment: variables(["XDG_RUNTIME_DIR"], environment))
    }

    /// `names` from `environment`, or from this process's environment when it is `nil`.
    private static func variables(_ names: [String], _ environment: [String: String]?) -> [String: String] {
        if let environment { return environment }
        var found = [String: String]()
        for name in names { found[name] = getenv(name).map { String(cString: $0) } }
        return found
    }

    /// The path the agent keys a vault by: `path` with symbolic links resolved. The vault must exist.
    public static func resolvedPath(_ path: String) throws -> String { try AgentClient.resolvedPath(path) }

    /// One vault the agent holds.
    public struct HeldVault: Equatable, Sendable {
        /// The resolved path the keys were handed for.
        public let path: String
        /// Seconds until the agent drops the keys; `nil` when no limit applies.
        public let secondsLeft: UInt64?
    }

    /// Hands the keys `vault` holds now to the agent, for its resolved path.
    ///
    /// - Throws: `agentRefused` for a limited recipient's keys, which the agent does not hold.
    public func add(_ vault: Vault) throws {
        let path = try Self.resolvedPath(vault.path)
        try agentCall { try client.add(vault.heldKeys, vaultID: vault.vaultID, path: path) }
    }

    /// Hands the keys that opened `snapshot` to the agent, for the vault at the resolved `path`.
    public func add(_ snapshot: VaultSnapshot, path: String) throws {
        try agentCall { try client.add(snapshot, path: path) }
    }

    /// The keys the agent holds for the vault at the resolved `path`, when its ID is `vaultID`;
    /// `nil` when it holds none.
    public func keys(forVaultAt path: String, vaultID: [UInt8]) throws -> VaultKeys? {
        try agentCall { try client.keys(path: path, vaultID: vaultID) }
    }

    /// Keys for the vault `vaultID` held for `path` (resolved when it exists), else for any
    /// path: git and copy tools hand a program temporary copies the agent never saw.
    /// `nil` when the agent holds none or cannot be reached.
    public func keys(forVaultID vaultID: [UInt8], preferring path: String) -> VaultKeys? {
        var paths = [String]()
        if let resolved = try? Self.resolvedPath(path) { paths.append(resolved) }
        if let held = try? status() { paths += held.map(\.path).filter { !paths.contains($0) } }
        for candidate in paths {
            if let keys = try? client.keys(path: candidate, vaultID: vaultID) { return keys }
        }
        return nil
    }

    /// Drops the keys of the vault at the resolved `path` (every vault when `nil`); returns how
    /// many vaults were dropped.
    @discardableResult
    public func lock(path: String?) throws -> Int {
        try agentCall { try client.lock(path: path) }
    }

    /// The vaults the agent holds.
    public func status() throws -> [HeldVault] {
        try agentCall { try client.status().map { HeldVault(path: $0.path, secondsLeft: $0.secondsLeft) } }
    }

    /// Asks the agent to drop every key and exit.
    public func stop() throws {
        try agentCall { try client.stop() }
    }

    /// When the agent drops keys on its own.
    public struct Limits: Sendable {
        /// Keys unused this long are dropped; `nil`: never.
        public var idleTimeout: Duration?
        /// Keys are dropped this long after they were handed over, used or not; `nil`: never.
        public var maximumLifetime: Duration?

        /// Limits of the two kinds.
        public init(idleTimeout: Duration?, maximumLifetime: Duration?) {
            self.idleTimeout = idleTimeout
            self.maximumLifetime = maximumLifetime
        }
    }

    /// Serves as the agent in this process until a `stop` request: on the socket systemd passed
    /// (socket activation, `LISTEN_FDS`), else on a new socket at ``socketPath``, in a 0700
    /// directory of this user. Calls `listening` once the socket accepts connections.
    ///
    /// - Throws: `system` when the socket cannot be made, such as when an agent already
    ///   listens there or the directory belongs to someone else.
    ///
    /// - Parameters:
    ///   - limits: When keys are dropped.
    ///   - environment: The variables to read (`LISTEN_PID`, `LISTEN_FDS`); `nil` reads this
    ///     process's environment.
    ///   - listening: Called once, when connections are accepted.
    public func serve(limits: Limits, environment: [String: String]? = nil, listening: () -> Void = {}) throws {
        let server = try agentCall {
            let activation = Self.variables(["LISTEN_PID", "LISTEN_FDS"], environment)
            if let inherited = try AgentSocket.inherited(environment: activation) {
                return AgentServer(socket: inherited, path: socketPath, limits: limits)
            }
            return try AgentServer(listeningAt: socketPath, limits: limits)
        }
        listening()
        server.run()
    }

    /// Creates the socket's directory with mode 0700, or checks that an existing one is a
    /// directory of this user that no one else can enter, as ``serve(limits:environment:listening:)``
    /// does first; a program that starts an agent in another process calls it to report a
    /// squatted directory itself.
    ///
    /// - Throws: `system` (`EPERM`) naming the directory, its owner and its mode.
    public func prepareSocketDirectory() throws {
        try agentCall { try AgentSocket.prepareDirectory(of: socketPath) }
    }

    private var client: AgentClient { AgentClient(socketPath: socketPath) }

    /// Runs one exchange, with the agent's internal failures as ``VaultIOError``s.
    private func agentCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as AgentSocket.Failure {
            throw VaultIOError(.system, operation: failure.step, errno: Errno(rawValue: failure.code))
        } catch let refused as AgentClient.Refused {
            throw VaultIOError(.agentRefused, reason: refused.description)
        }
    }
}
