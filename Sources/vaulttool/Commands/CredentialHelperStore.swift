// vaulttool credential-helper: the vault file the helpers keep internet passwords in.

import FoundationEssentials
import Glibc
import VaultDelivery
import VaultIO

/// The vault file, opened directly with the credentials of the command line (no agent).
///
/// Spec: Spec/cli.md, "credential-helper" (vault location and credentials).
struct VaultFileStore: CredentialHelperStore {
    /// The vault's path.
    let path: String
    /// Whether `path` is the per-user standard vault, which `store` creates on first use.
    let isStandard: Bool
    /// The credential options given to the helper.
    let options: CredentialOptions

    /// The vault named by `--vault`, else by `VAULTTOOL_VAULT`, else the standard vault.
    init(vault: String?, options: CredentialOptions) throws {
        self.options = options
        (path, isStandard) = try VaultLocation.path(vault)
    }

    /// Whether no credential option was given at all (then the per-user device secret is used).
    var usesDefaultCredentials: Bool { options.namesNoCredential }

    /// Whether there is no credential at all: no option, and no device secret of this user.
    /// Then only the agent's keys open the vault.
    var hasNoCredential: Bool { usesDefaultCredentials && options.withUsersDeviceSecret == nil }

    /// Whether a missing vault file means "no credentials" rather than an error.
    var missingMeansEmpty: Bool { isStandard && !FileManager.default.fileExists(atPath: path) }

    /// The credentials, never from a prompt: standard input carries the protocol, and git or
    /// docker may run the helper with no terminal at all.
    func credentials() throws -> Credentials {
        guard usesDefaultCredentials else { return try options.credentials() }
        guard let withDevice = options.withUsersDeviceSecret else {
            throw ToolError(
                "no credential for the vault, and a credential helper cannot prompt; "
                    + "pass --password-file, --key-file or --device-secret-file in the helper's command",
                exitCode: .usage
            )
        }
        return try withDevice.credentials()
    }

    // MARK: - Opening

    // The two places where options become an open vault: the agent's keys for `path` when
    // `VAULT_AGENT_SOCK` is set, no password or key file was given and the agent holds the
    // vault (Spec/agent.md); otherwise `credentials()`.

    /// The newest generation, read-only (one key derivation, or none with the agent or the device secret).
    private func openSnapshot() throws -> VaultSnapshot {
        try openSnapshot(otherwise: credentials)
    }

    /// The newest generation, read-only: with the agent's keys when it holds the vault, else with
    /// the credentials `otherwise` returns (`credential-server` reads them once, at start).
    func openSnapshot(otherwise: () throws -> Credentials) throws -> VaultSnapshot {
        if case .agent(_, let snapshot) = VaultAccess.agentOpener(path, options) {
            return try VaultAccess.observed(snapshot, at: path)
        }
        return try VaultAccess.snapshot(path, credentials: try otherwise())
    }

    /// The vault, for a write.
    private func openVault() throws -> Vault {
        try VaultAccess.vault(path, VaultAccess.agentOpener(path, options) ?? .credentials(try credentials()))
    }

    // MARK: - CredentialHelperStore

    func find(withSecrets: Bool, exact: ItemAttributes?, _ filter: (ItemAttributes) -> Bool) throws
        -> [CredentialHelperItem]
    {
        if missingMeansEmpty { return [] }
        return try openSnapshot().credentialHelperItems(withSecrets: withSecrets, exact: exact, filter)
    }

    @discardableResult
    func store(_ attributes: ItemAttributes, secret: SecretBytes, replacing: ((ItemAttributes) -> Bool)?) throws -> Bool
    {
        if missingMeansEmpty && usesDefaultCredentials {
            // The zero-configuration case: create the per-user vault and its device secret.
            _ = try Vault.standard(configuration: try VaultAccess.configuration())
        }
        return try VaultAccess.write(try openVault()) { txn in
            try txn.storeCredentialHelperItem(attributes, secret: secret, replacing: replacing)
        }
    }

    func erase(_ filter: (ItemAttributes) -> Bool, ifSecretEquals secret: SecretBytes?) throws -> Int {
        if missingMeansEmpty { return 0 }
        return try VaultAccess.write(try openVault()) { txn in
            try txn.eraseCredentialHelperItems(filter, ifSecretEquals: secret)
        }
    }
}
