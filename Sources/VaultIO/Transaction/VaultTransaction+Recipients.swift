// vault: recipients inside a write (format 1.2): add, list, remove with a rekey.

public import VaultFormat

extension VaultTransaction {
    /// The recipients of the new generation, in file order: each one's public key and name.
    ///
    /// Their keys and names are sealed under a key derived from the master key, so this needs
    /// the master key (R12-RCP-4).
    ///
    /// - Throws: ``VaultIOError/Code/locked`` without the master key; ``VaultFormatError``
    ///   `headerAuthentication` or `structure` for a damaged stanza.
    public func recipients() throws -> [Recipient] {
        try requireMasterKey("list recipients")
        return try writer.recipients()
    }

    /// Raises a format 1.1 vault to format 1.2, which can hold recipients (R12-MIG-1).
    ///
    /// A 1.0 vault must be upgraded to 1.1 first (``upgradeToVersion11()``). Nothing else changes:
    /// keys, keyslots and records stay.
    ///
    /// - Returns: Whether the version changed (`false` for a vault already in format 1.2).
    /// - Throws: ``VaultFormatError`` `unsupportedVersion` for a 1.0 vault; `invalidParameter` when
    ///   the vault holds an unknown header field of type `0x0001` (R12-MIG-1).
    @discardableResult
    public mutating func upgradeToVersion12() throws -> Bool {
        if writer.header.major == 1 && writer.header.minor < 1 {
            throw VaultFormatError(.unsupportedVersion, "a format 1.0 vault is upgraded to 1.1 before 1.2")
        }
        guard try writer.upgradeToVersion12() else { return false }
        hasChanges = true
        return true
    }

    /// Lets the holder of `key`'s identity open the vault: adds a stanza that wraps the master key
    /// to it. Records and keyslots are untouched (as R-KS-5).
    ///
    /// ```swift
    /// try vault.write { txn in
    ///     try txn.addRecipient(try RecipientKey(text: "VAULT-RECIPIENT-1:…"), name: "ci-deploy")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The recipient's public key.
    ///   - name: A name for people, 0 to 64 UTF-8 bytes, no control characters; stored encrypted.
    /// - Throws: ``VaultIOError/Code/locked`` without the master key; ``VaultFormatError``
    ///   `unsupportedVersion` when the vault is not format 1.2 (``upgradeToVersion12()`` first),
    ///   `invalidParameter` when `key` is already a recipient or the name is unusable, `limit`
    ///   past 32 recipients.
    public mutating func addRecipient(_ key: RecipientKey, name: String) throws {
        try requireMasterKey("add a recipient")
        try writer.addRecipient(Recipient(key: key, name: name))
        hasChanges = true
        keyslotsChanged = true
    }

    /// Removes every recipient stanza whose key and name do not read with the master key (damaged,
    /// or written on purpose by another holder of the master key: such a stanza makes every rekey,
    /// and so every ``removeRecipient(_:rekey:)``, fail), then rekeys as ``removeRecipient(_:rekey:)``.
    ///
    /// - Returns: How many stanzas were removed (nothing is written for none), and what the rekey did.
    /// - Throws: ``VaultIOError/Code/locked`` without the master key; as ``rekey(_:)``.
    @discardableResult
    public mutating func removeUnreadableRecipients(rekey: RekeyOptions? = RekeyOptions()) throws
        -> (removed: Int, rekey: RekeyReport?)
    {
        try requireMasterKey("remove recipients")
        if rekey == nil, let master = writer.keys.master {
            let vaultID = writer.header.vaultID
            let limitedUnreadable = writer.header.recipientStanzas.contains {
                $0.scope == RecipientStanza.limitedScope
                    && (try? KeyHierarchy.recipient(of: $0, master: master, vaultID: vaultID)) == nil
            }
            if limitedUnreadable { throw Self.limitedRemovalNeedsRekey }
        }
        let removed = try writer.removeUnreadableRecipients()
        guard removed > 0 else { return (0, nil) }
        hasChanges = true
        keyslotsChanged = true
        guard let rekey else { return (removed, nil) }
        return (removed, try self.rekey(rekey))
    }

    /// Removes the recipient with `key` (every stanza that names it) and, unless `rekey` is `nil`,
    /// replaces the master key, so that the removed identity, with a copy of the file made before,
    /// does not open what is written from now on (R12-RCP-6). A recipient limited to one access group (format 2.0) is
    /// removed only with a rekey (R2-RCP-5): with `rekey` `nil` it throws `invalidParameter`.
    ///
    /// The rekey rewraps every remaining recipient from its stored public key (no identity is
    /// needed) and every keyslot as ``rekey(_:)`` does, which needs each keyslot's credential in
    /// `rekey`.
    ///
    /// - Returns: What the rekey did, or `nil` without one.
    /// - Throws: ``VaultFormatError`` `invalidParameter` when `key` is not a recipient; as
    ///   ``recipients()`` and ``rekey(_:)``.
    @discardableResult
    public mutating func removeRecipient(_ key: RecipientKey, rekey: RekeyOptions? = RekeyOptions()) throws
        -> RekeyReport?
    {
        let stanzas = zip(writer.header.recipientStanzas, try recipients()).filter { $0.1.key == key }.map(\.0)
        guard !stanzas.isEmpty else {
            throw VaultFormatError(.invalidParameter, "this key is not a recipient of the vault")
        }
        // R2-RCP-5: the removed holder of a limited stanza knows HK, IK, LK and GK(d), which
        // only a new master key replaces.
        if rekey == nil, stanzas.contains(where: { $0.scope == RecipientStanza.limitedScope }) {
            throw Self.limitedRemovalNeedsRekey
        }
        // R12-RCP-7: every stanza that names the key, so that a second one cannot keep it in.
        try writer.removeRecipient(key)
        hasChanges = true
        keyslotsChanged = true
        guard let rekey else { return nil }
        return try self.rekey(rekey)
    }

    static var limitedRemovalNeedsRekey: VaultFormatError {
        VaultFormatError(
            .invalidParameter,
            "removing a recipient limited to one access group must rekey in the same write (R2-RCP-5)"
        )
    }
}
