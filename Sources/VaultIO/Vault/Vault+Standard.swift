// vault: the zero-configuration per-user vault, unlocked by the device secret (a login-keychain analogue).

import Synchronization
import VaultFormat

extension Vault {
    /// Where ``standard(directory:configuration:)`` keeps the vault:
    /// `$XDG_DATA_HOME/vault/default.vault` (`~/.local/share/vault/default.vault`), next to the
    /// device secret; `nil` when this process has no home directory.
    public static var standardPath: String? { DeviceSecretFile.dataDirectory().map { $0 + "/vault/default.vault" } }

    /// The standard vault of the user running this process, created on first use.
    ///
    /// It lives at `$XDG_DATA_HOME/vault/default.vault` (`~/.local/share/vault/default.vault`)
    /// next to the device secret (`device-secret`), in a directory created with mode
    /// `0700`. Its only keyslot is a **master-scope device keyslot**: the device
    /// secret opens it completely, with no prompt, as a login keychain opens with the
    /// session.
    ///
    /// What it protects against: a copy of `default.vault` alone (a backup, a synced
    /// or shared folder, a stolen disk image without the data directory) reveals
    /// nothing but sizes and counts, because the device secret never enters the vault
    /// file. Keep the device secret out of backups and synced folders to keep it so.
    ///
    /// What it does not protect against: any process running as the same user (or
    /// root) can read the device secret and so every item, and a backup that holds
    /// both files holds everything. For secrets that must resist those, use a vault
    /// with a password keyslot.
    ///
    /// One `Vault` per path is shared by the whole process, so the first call fixes its
    /// configuration. A later call that passes no configuration gets the shared instance; one
    /// that passes a different configuration would be silently ignored, so it throws
    /// ``VaultIOError/Code/configurationConflict`` instead.
    ///
    /// - Parameters:
    ///   - directory: Where the vault lives; `$XDG_DATA_HOME/vault` by default.
    ///   - configuration: Lock and idle timeouts. A ``VaultConfiguration/deviceSecretPath``
    ///     set here overrides `<directory>/device-secret`. `nil` (the default): the shared
    ///     instance's configuration, or `VaultConfiguration()` for the first call.
    /// - Returns: The open vault.
    /// - Throws: A ``VaultIOError`` naming the step that failed, ``VaultIOError/Code/configurationConflict``
    ///   when this process already opened the vault at this path with another configuration; a
    ///   ``VaultFormatError`` when the file is not a vault or the device secret does not open it.
    ///
    /// Spec: Spec/library-semantics.md, "Standard vault" (L-STD-1 to L-STD-4).
    public static func standard(
        directory: String? = nil,
        configuration: VaultConfiguration? = nil
    ) throws -> Vault {
        let requested = configuration
        guard
            let directory = directory.map(DeviceSecretFile.absolute)
                ?? DeviceSecretFile.dataDirectory().map({ $0 + "/vault" })
        else {
            throw VaultIOError(
                .invalidPath,
                operation: "standard",
                path: "",
                reason: "this process has no home directory; set XDG_DATA_HOME or pass a directory"
            )
        }
        let path = directory + "/default.vault"
        try requested?.refuseTestingConfiguration(at: path)  // L-TEST-1, before any directory is made
        var configuration = requested ?? VaultConfiguration()
        if configuration.deviceSecretPath == nil { configuration.deviceSecretPath = directory + "/device-secret" }
        configuration.deviceSecretCreation = .ifMissing
        return try standardVaults.withLock { cache in
            if let (vault, first) = cache[path] {
                // L-STD-4: one instance per path, so a second configuration cannot take effect.
                guard requested == nil || first == configuration else {
                    throw VaultIOError(
                        .configurationConflict,
                        operation: "standard",
                        path: path,
                        reason: "this process already opened the standard vault with another configuration"
                    )
                }
                return vault
            }
            if !configuration.readOnly { try DeviceSecretFile.makeDirectories(directory) }  // L-RO-1
            let vault = try openOrCreateStandard(at: path, configuration: configuration)
            cache[path] = (vault, configuration)
            return vault
        }
    }

    private static func openOrCreateStandard(at path: String, configuration: VaultConfiguration) throws -> Vault {
        do {
            return try Vault(path: path, credentials: Credentials(), configuration: configuration)
        } catch let error as VaultIOError where error.errno == .noSuchFileOrDirectory {
            do {
                return try create(
                    at: path,
                    credentials: Credentials(),
                    slots: [(.device, .masterKey)],
                    configuration: configuration,
                    now: currentTime()
                )
            } catch let error as VaultIOError where error.code == .alreadyExists {
                // Another process created it first.
                return try Vault(path: path, credentials: Credentials(), configuration: configuration)
            }
        }
    }

    private static let standardVaults = Mutex<[String: (Vault, VaultConfiguration)]>([:])
}

extension Keychain {
    /// A keychain of the executable's service (``defaultService``) in the standard vault
    /// (``Vault/standard(directory:configuration:)``): no password, no configuration.
    ///
    /// ```swift
    /// try Keychain.standard.set("s3cr3t", forKey: "api-token")
    /// ```
    public static var standard: Keychain {
        get throws(KeychainError) { Keychain(vault: try keychainCall { try Vault.standard() }) }
    }
}
