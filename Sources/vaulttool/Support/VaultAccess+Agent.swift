// vaulttool: opening vaults with keys from the agent when one holds them.

import FoundationEssentials
import Glibc
import VaultIO

/// How a command opens a vault: with keys from the agent (already checked against the
/// newest generation), or with credentials.
enum VaultOpener {
    case agent(VaultKeys, VaultSnapshot)
    case credentials(Credentials)
}

extension VaultAccess {
    /// Keys from the agent when `VAULT_AGENT_SOCK` is set, no password or key file was given,
    /// and the agent holds this vault; otherwise the credentials the options supply.
    static func opener(_ path: String, _ options: CredentialOptions) throws -> VaultOpener {
        if let opener = agentOpener(path, options) { return opener }
        do {
            return .credentials(try options.credentials())
        } catch let error as ToolError where error.exitCode == .usage {
            // No credential and none to ask for: when an agent runs but no longer holds this
            // vault (locked, idle timeout, lifetime), that is what the user needs to hear.
            guard let hint = agentHoldsNothingHint(path, options) else { throw error }
            throw ToolError("\(hint); or: \(error.message)", exitCode: .usage)
        }
    }

    /// "The agent … holds no keys for PATH …", when no credential was given, an agent answers
    /// at `VAULT_AGENT_SOCK` and it does not hold this vault; `nil` otherwise.
    static func agentHoldsNothingHint(_ path: String, _ options: CredentialOptions) -> String? {
        guard !options.hasPasswordSource && options.keyFile == nil, let agent = VaultAgent.fromEnvironment(),
            let resolved = try? VaultAgent.resolvedPath(path), let held = try? agent.status(),
            !held.contains(where: { $0.path == resolved })
        else { return nil }
        return "the agent at VAULT_AGENT_SOCK holds no keys for \(path) (locked, or dropped after its idle "
            + "timeout or lifetime): run 'vaulttool unlock \(path)' with a credential option"
    }

    /// The agent's keys for `path`, when `VAULT_AGENT_SOCK` is set, no password or key file was
    /// given, and the agent holds that vault; `nil` otherwise.
    static func agentOpener(_ path: String, _ options: CredentialOptions) -> VaultOpener? {
        guard !options.hasPasswordSource && options.keyFile == nil, let agent = VaultAgent.fromEnvironment(),
            let (keys, snapshot) = agentKeys(path, agent)
        else { return nil }
        // A device secret asked for (option or VAULTTOOL_DEVICE_SECRET_FILE) that the agent's keys
        // lack: the ThisDeviceOnly items would be out of reach, so the credentials are used.
        if options.deviceSecretFile != nil && keys.deviceSecret == nil {
            Output.err(
                "vaulttool: note: the agent holds \(path) without a device secret; using the credentials "
                    + "(unlock it with --device-secret-file to use the agent)\n"
            )
            return nil
        }
        return .agent(keys, snapshot)
    }

    /// After a rekey: an agent that held the vault's old keys gets the new ones, so that it
    /// neither keeps a revoked master key nor stops working (Spec/agent.md, section 1).
    static func refreshAgent(after vault: Vault) {
        guard let agent = VaultAgent.fromEnvironment(), let resolved = try? VaultAgent.resolvedPath(vault.path) else {
            return
        }
        guard let dropped = try? agent.lock(path: resolved), dropped > 0 else { return }
        do {
            try agent.add(vault)
            Output.err("vaulttool: the agent dropped the old keys of \(vault.path) and holds the new ones\n")
        } catch {
            Output.err("vaulttool: the agent dropped the old keys of \(vault.path); run 'vaulttool unlock' again\n")
        }
    }

    /// Asks the agent, and checks that its keys open the newest generation; `nil` (fall back
    /// to credentials) otherwise, with a note on stderr when the agent cannot be reached or
    /// its keys no longer fit (the vault was re-keyed since `unlock`).
    private static func agentKeys(_ path: String, _ agent: VaultAgent) -> (VaultKeys, VaultSnapshot)? {
        guard let resolved = try? VaultAgent.resolvedPath(path), let reader = try? VaultFileReader(path: resolved),
            let header = try? reader.header()
        else { return nil }
        let keys: VaultKeys
        do {
            guard let held = try agent.keys(forVaultAt: resolved, vaultID: header.vaultID) else {
                return nil
            }
            keys = held
        } catch {
            Output.err("vaulttool: note: the vault agent at VAULT_AGENT_SOCK cannot be reached; using credentials\n")
            return nil
        }
        guard let snapshot = try? reader.open(keys: keys) else {
            Output.err("vaulttool: note: the agent's keys no longer open \(path) (re-keyed?); using credentials\n")
            return nil
        }
        return (keys, snapshot)
    }

    /// Opens the newest generation of `path` read-only, with the agent's keys or credentials;
    /// either way it is compared with the rollback record.
    static func snapshot(_ path: String, _ options: CredentialOptions) throws -> VaultSnapshot {
        switch try opener(path, options) {
        case .agent(_, let snapshot): return try observed(snapshot, at: path)
        case .credentials(let credentials): return try snapshot(path, credentials: credentials)
        }
    }
}
