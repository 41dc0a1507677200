// vault: opening a vault with keys another process unlocked (the vault agent).

import VaultFormat

extension VaultFileReader {
    /// Opens this generation with keys already unlocked (``Vault/heldKeys``, a ``VaultAgent``):
    /// no KDF; the header MAC is checked.
    public func open(keys: VaultKeys) throws -> VaultSnapshot { try open(keys: keys, openedKeyslot: 0) }

    /// Opens this generation with keys already unlocked, recording which keyslot gave them.
    package func open(keys: VaultKeys, openedKeyslot: Int) throws -> VaultSnapshot {
        let head = try head()
        return try VaultSnapshot.open(
            headerBytes: head.bytes,
            fileLength: fileLength,
            source: self,
            keys: keys,
            openedKeyslot: openedKeyslot
        ).noting(head)
    }
}

extension Vault {
    /// Opens `path` with keys already unlocked, checking that they open its newest generation.
    ///
    /// The keys come from ``heldKeys`` of another open vault, or from a ``VaultAgent``. Keys without
    /// a device secret get the one ``VaultConfiguration/deviceSecretPath`` names, as credentials do.
    ///
    /// The file is compared with the rollback record as an open with credentials compares it
    /// (L-RB-4): a rolled-back copy throws ``VaultIOError/Code/rolledBack`` unless the policy lets
    /// it through, and then ``rollbackFinding`` reports it.
    public convenience init(path: String, keys: VaultKeys, configuration: VaultConfiguration) throws {
        let location = try VaultPath.resolvingExisting(path)
        let reader = try VaultFileReader(path: location.path)
        var keys = keys
        // Keys unlocked without a device secret (an agent's) get the configured one, as
        // credentials do, so that the …ThisDeviceOnly classes open.
        if keys.deviceSecret == nil, configuration.deviceSecretPath != nil,
            let secret = try Self.addingDeviceSecret(to: Credentials(), configuration).deviceSecret
        {
            keys = keys.adding(deviceSecret: secret, vaultID: try reader.header().vaultID)
        }
        try self.init(location: location, screening: try reader.open(keys: keys), configuration: configuration)
    }

    /// The keys this vault holds now (without the master key once locked).
    public var heldKeys: VaultKeys { keyState.withLock { $0.keys } }
}

extension AgentClient {
    /// The resolved path of an existing vault (symbolic links followed), as the agent keys it.
    package static func resolvedPath(_ path: String) throws -> String {
        try VaultPath.resolvingExisting(path).path
    }
}
