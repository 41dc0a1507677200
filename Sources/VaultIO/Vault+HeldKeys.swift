// vault: opening a vault with keys another process unlocked (the vault agent).

import VaultFormat

extension VaultFileReader {
    /// Opens this generation with keys already unlocked (``Vault/heldKeys``, a ``VaultAgent``):
    /// no KDF; the header MAC is checked.
    public func open(keys: VaultKeys) throws -> VaultSnapshot { try open(keys: keys, openedKeyslot: 0) }

    /// Opens this generation with keys already unlocked, recording which keyslot gave them.
    package func open(keys: VaultKeys, openedKeyslot: Int) throws -> VaultSnapshot {
        try VaultSnapshot.open(
            headerBytes: try headerBytes(),
            fileLength: fileLength,
            source: self,
            keys: keys,
            openedKeyslot: openedKeyslot
        )
    }
}

extension Vault {
    /// Opens `path` with keys already unlocked, checking that they open its newest generation.
    ///
    /// The keys come from ``heldKeys`` of another open vault, or from a ``VaultAgent``.
    ///
    /// The file is compared with the rollback record as an open with credentials compares it
    /// (L-RB-4): a rolled-back copy throws ``VaultIOError/Code/rolledBack`` unless the policy lets
    /// it through, and then ``rollbackFinding`` reports it.
    public convenience init(path: String, keys: VaultKeys, configuration: VaultConfiguration) throws {
        let location = try VaultPath.resolvingExisting(path)
        try self.init(
            location: location,
            screening: try VaultFileReader(path: location.path).open(keys: keys),
            configuration: configuration
        )
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
