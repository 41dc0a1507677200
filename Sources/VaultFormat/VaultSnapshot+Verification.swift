// vault: a whole-vault check that tells foreign items from items whose key is not held.

/// The outcome of ``VaultSnapshot/verifyReport()``.
public struct VerificationReport: Equatable, Sendable {
    /// Items whose records were opened and checked.
    public var checked = 0
    /// Device-bound items that read as another device's (`foreignDevice`, R-REC-2).
    public var foreign = 0
    /// Items whose class key the credentials do not reach (`keyUnavailable`, R-REC-4).
    public var unavailable = 0
    /// Device-bound items that the authenticated index attributes to this device (R11-DEV-2).
    public var ownDeviceItems = 0

    /// Creates a report.
    public init(checked: Int = 0, foreign: Int = 0, unavailable: Int = 0, ownDeviceItems: Int = 0) {
        self.checked = checked
        self.foreign = foreign
        self.unavailable = unavailable
        self.ownDeviceItems = ownDeviceItems
    }

    /// Items not checked: ``foreign`` plus ``unavailable``.
    public var skipped: Int { foreign + unavailable }
}

extension VaultSnapshot {
    /// Checks every record as ``verify()`` does, counting foreign items and items whose key
    /// is not held separately (section 10.1 step 9).
    ///
    /// - Throws: The first ``VaultFormatError`` other than `foreignDevice` and `keyUnavailable`.
    public func verifyReport() throws -> VerificationReport {
        try index.checkIdentifiers()
        var report = VerificationReport()
        var seen = Set<PrimaryKey>()
        for position in 0..<index.count {
            let entry = index.entry(at: position)
            if entry.protectionClass.isDeviceBound && keys.isOwnDeviceItem(entry.itemID) { report.ownDeviceItems += 1 }
            do {
                let attributes = try self.attributes(at: position)
                _ = try secret(at: position)
                guard seen.insert(PrimaryKey(itemClass: entry.itemClass, attributes: attributes)).inserted else {
                    throw VaultFormatError(.recordCorrupt, "two items have the same primary key")
                }
                report.checked += 1
            } catch let error as VaultFormatError where error.code == .foreignDevice {
                report.foreign += 1
            } catch let error as VaultFormatError where error.code == .keyUnavailable {
                report.unavailable += 1
            }
        }
        return report
    }
}
