// vault: access groups and recipients limited to one of them, inside a write (format 2.0).

package import VaultFormat

extension VaultTransaction {
    /// Raises a format 1.1 or 1.2 vault to format 2.0, which can hold recipients limited to one
    /// access group (R2-MIG-1). Records, keyslots and recipients stay; no 1.x tool opens the
    /// vault afterwards.
    ///
    /// - Returns: Whether the version changed.
    /// - Throws: ``VaultFormatError`` `unsupportedVersion` for a 1.0 vault (upgrade to 1.1 first);
    ///   `invalidParameter` as ``upgradeToVersion12()``.
    @discardableResult
    package mutating func upgradeToVersion2() throws -> Bool {
        guard try writer.upgradeToVersion2() else { return false }
        hasChanges = true
        return true
    }

    /// Lets the holder of `key`'s identity read the items of `accessGroup` and nothing else
    /// (R2-RCP-2). The first such recipient of a group seals the group's items again under the
    /// group's own key (R2-GRP-4).
    ///
    /// - Throws: ``VaultIOError/Code/locked`` without the master key; ``VaultFormatError``
    ///   `unsupportedVersion` when the vault is not format 2.0, `invalidParameter` for a key that
    ///   is already a recipient or an unusable name or group, `limit` past 32 recipients or
    ///   groups, `foreignDevice` when the vault holds another device's items.
    public mutating func addRecipient(_ key: RecipientKey, name: String, limitedTo accessGroup: String) throws {
        try requireMasterKey("add a recipient")
        try writer.addRecipient(Recipient(key: key, name: name), limitedTo: accessGroup)
        hasChanges = true
        keyslotsChanged = true
    }
}
