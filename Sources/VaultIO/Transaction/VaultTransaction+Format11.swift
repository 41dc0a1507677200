// vault: upgrading a vault to format 1.1 inside a transaction.

public import VaultFormat

extension VaultTransaction {
    /// The format version this transaction writes, as `(major, minor)`.
    public var formatVersion: (major: UInt16, minor: UInt16) { (writer.header.major, writer.header.minor) }

    /// Raises a 1.0 vault to format 1.1 and moves this device's device-bound items to their
    /// device-tagged IDs (Spec/format-v1.1.md, R11-MIG-1).
    ///
    /// Password keyslots are not touched here: rewrap them afterwards with
    /// ``replaceKeyslot(at:kind:credentials:kdf:scope:rekey:)`` so that they take the NFC form of
    /// their password (R11-PW-1). Calling this on a 1.1 vault only re-tags items that still
    /// lack their tag.
    ///
    /// - Returns: What happened to the device-bound items.
    /// - Throws: ``VaultFormatError`` `recordCorrupt` when a device-bound record is damaged.
    @discardableResult
    public mutating func upgradeToVersion11() throws -> Version11UpgradeReport {
        if writer.upgradeToVersion11() { hasChanges = true }
        let report = try writer.retagDeviceItems(now: now)
        if report.retagged > 0 { hasChanges = true }
        return report
    }

    /// Raises a format 1.1, 1.2 or 2.0 vault to format 3 (Spec/format-v3.md §11): the vault is
    /// written whole once, every record byte for byte, each item's history the one event of its
    /// version. No tool older than format 3 opens the vault afterwards.
    ///
    /// - Returns: Whether the version changed.
    /// - Throws: ``VaultFormatError`` `keyUnavailable` without the master key, `unsupportedVersion`
    ///   for a 1.0 vault (upgrade to 1.1 first), `invalidParameter` as ``upgradeToVersion12()``.
    @discardableResult
    package mutating func upgradeToVersion3() throws -> Bool {
        guard try writer.upgradeToVersion3() else { return false }
        hasChanges = true
        return true
    }
}
