// vault: the one rule for opening a vault: the agent's keys when it holds the vault, else credentials.

/// How a vault is opened: with keys a vault agent holds (already checked against the newest
/// generation, which the snapshot is), or with credentials read from their sources.
///
/// ```swift
/// switch try sources.opening("team.vault") {
/// case .agent(let keys, _): vault = try Vault(path: "team.vault", keys: keys)
/// case .credentials(let credentials): vault = try Vault(path: "team.vault", credentials: credentials)
/// }
/// ```
///
/// Spec: Spec/agent.md, section 1.
public enum VaultOpening: Sendable {
    /// Keys the agent holds, and the newest generation they open.
    case agent(VaultKeys, VaultSnapshot)
    /// Credentials read from their sources.
    case credentials(Credentials)
}

extension CredentialSources {
    /// Why an agent's keys were not used for a vault although the agent holds it.
    public enum AgentFallback: Sendable, Equatable {
        /// The sources name a device secret and the agent's keys lack one: the `…ThisDeviceOnly`
        /// items would be out of reach.
        case lacksDeviceSecret
        /// The agent did not answer.
        case unreachable
        /// The agent's keys no longer open the vault (re-keyed since it was unlocked).
        case keysNoLongerOpen
    }

    /// Opens `path` with the agent's keys when ``agentOpening(_:agent:fallback:)`` finds them,
    /// else with ``credentials(confirm:prompt:)``.
    ///
    /// - Parameters:
    ///   - path: The vault file.
    ///   - agent: The agent to ask; `nil` asks none.
    ///   - fallback: Told why the agent's keys were not used, when it held them.
    /// - Throws: The errors of ``credentials(confirm:prompt:)``. When no credential is named and
    ///   none can be asked for, and an agent runs but does not hold this vault (locked, idle
    ///   timeout, lifetime), the ``VaultIOError/Code/invalidInput`` reason says so first.
    public func opening(
        _ path: String,
        agent: VaultAgent? = VaultAgent.fromEnvironment(),
        fallback: (AgentFallback) -> Void = { _ in }
    ) throws -> VaultOpening {
        if let opening = agentOpening(path, agent: agent, fallback: fallback) { return opening }
        do {
            return .credentials(try credentials())
        } catch let error as VaultIOError where error.code == .invalidInput {
            guard password == nil && keyFile == nil, let agent, let resolved = try? VaultAgent.resolvedPath(path),
                let held = try? agent.status(), !held.contains(where: { $0.path == resolved })
            else { throw error }
            throw VaultIOError(
                .invalidInput,
                path: path,
                reason: "the agent at VAULT_AGENT_SOCK holds no keys for \(path) (locked, or dropped after its idle "
                    + "timeout or lifetime): run 'vaulttool unlock \(path)' with a credential option; or: \(error.reason)"
            )
        }
    }

    /// The agent's keys for `path` and the newest generation they open, when `agent` is given,
    /// no password or key file is named (those ask for these credentials), and the agent holds
    /// the vault; `nil` otherwise, after telling `fallback` why when the agent held it.
    public func agentOpening(
        _ path: String,
        agent: VaultAgent? = VaultAgent.fromEnvironment(),
        fallback: (AgentFallback) -> Void = { _ in }
    ) -> VaultOpening? {
        guard password == nil && keyFile == nil, let agent, let resolved = try? VaultAgent.resolvedPath(path),
            let reader = try? VaultFileReader(path: resolved), let header = try? reader.header()
        else { return nil }
        let keys: VaultKeys
        do {
            guard let held = try agent.keys(forVaultAt: resolved, vaultID: header.vaultID) else { return nil }
            keys = held
        } catch {
            fallback(.unreachable)
            return nil
        }
        guard let snapshot = try? reader.open(keys: keys) else {
            fallback(.keysNoLongerOpen)
            return nil
        }
        if deviceSecretFile != nil && keys.deviceSecret == nil {
            fallback(.lacksDeviceSecret)
            return nil
        }
        return .agent(keys, snapshot)
    }

    /// The agent's keys for a vault of `vaultID`, found by ID (git and copy tools hand over
    /// temporary copies whose paths the agent never saw), preferring those held for `path`; the
    /// device secret the sources name is added when the keys lack one. `nil` when no agent
    /// holds such a vault.
    public func agentKeys(
        forVaultID vaultID: [UInt8],
        preferring path: String,
        agent: VaultAgent? = VaultAgent.fromEnvironment()
    ) -> VaultKeys? {
        guard var keys = agent?.keys(forVaultID: vaultID, preferring: path) else { return nil }
        if keys.deviceSecret == nil, let deviceSecretFile,
            let secret = try? Self.loadDeviceSecret(deviceSecretFile)
        {
            keys = keys.adding(deviceSecret: secret, vaultID: vaultID)
        }
        return keys
    }
}

extension VaultAgent {
    /// After a rekey of `vault`: when this agent held its old keys, drops them and adds the new
    /// ones, so that it neither keeps a revoked master key nor stops working.
    ///
    /// - Returns: `nil` when the agent held no keys for it (or cannot be reached); `true` when it
    ///   holds the new keys; `false` when it dropped the old ones but could not take the new.
    ///
    /// Spec: Spec/agent.md, section 1.
    public func replaceKeys(of vault: Vault) -> Bool? {
        guard let resolved = try? Self.resolvedPath(vault.path), let dropped = try? lock(path: resolved), dropped > 0
        else { return nil }
        return (try? add(vault)) != nil
    }
}
