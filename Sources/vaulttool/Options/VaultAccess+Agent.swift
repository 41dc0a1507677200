// vaulttool: opening vaults with keys from the agent when one holds them (VaultIO's one opener).

import VaultIO

extension VaultAccess {
    /// Keys from the agent when `VAULT_AGENT_SOCK` is set, no password or key file was given,
    /// and the agent holds this vault; otherwise the credentials the options supply
    /// (``CredentialSources/opening(_:agent:fallback:)``), with a note when the agent's keys
    /// could not be used.
    static func opener(_ path: String, _ options: CredentialOptions) throws -> VaultOpening {
        try options.sources.opening(path) { note($0, path) }
    }

    /// Opens `path` for writing with the agent's keys or the credentials the options supply
    /// (``opener(_:_:)``), accepting a rolled-back file when `--accept-rollback` was given.
    static func vault(_ path: String, _ options: CredentialOptions) throws -> Vault {
        try vault(path, try opener(path, options), acceptRollback: options.acceptRollback)
    }

    /// The agent's keys for `path` when it holds them (``CredentialSources/agentOpening(_:agent:fallback:)``).
    static func agentOpener(_ path: String, _ options: CredentialOptions) -> VaultOpening? {
        options.sources.agentOpening(path) { note($0, path) }
    }

    /// Why the agent's keys were not used, on stderr.
    private static func note(_ fallback: CredentialSources.AgentFallback, _ path: String) {
        switch fallback {
        case .lacksDeviceSecret:
            Output.err(
                "vaulttool: note: the agent holds \(path) without a device secret; using the credentials "
                    + "(unlock it with --device-secret-file to use the agent)\n"
            )
        case .unreachable:
            Output.err("vaulttool: note: the vault agent at VAULT_AGENT_SOCK cannot be reached; using credentials\n")
        case .keysNoLongerOpen:
            Output.err("vaulttool: note: the agent's keys no longer open \(path) (re-keyed?); using credentials\n")
        }
    }

    /// After a rekey: an agent that held the vault's old keys gets the new ones
    /// (``VaultAgent/replaceKeys(of:)``), and the user hears which happened.
    static func refreshAgent(after vault: Vault) {
        switch VaultAgent.fromEnvironment()?.replaceKeys(of: vault) {
        case true?: Output.err("vaulttool: the agent dropped the old keys of \(vault.path) and holds the new ones\n")
        case false?:
            Output.err("vaulttool: the agent dropped the old keys of \(vault.path); run 'vaulttool unlock' again\n")
        case nil: break
        }
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
