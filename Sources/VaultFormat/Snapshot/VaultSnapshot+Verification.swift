// vault: a whole-vault check that names every damaged item and tells foreign items from
// items whose key is not held.

/// The outcome of ``VaultSnapshot/verifyEachItem()`` and ``VaultSnapshot/verifyReport()``.
public struct VerificationReport: Sendable {
    /// Items whose records were opened and checked.
    public var checked = 0
    /// Device-bound items that read as another device's (`foreignDevice`, R-REC-2).
    public var foreign = 0
    /// Items whose class key the credentials do not reach (`keyUnavailable`, R-REC-4).
    public var unavailable = 0
    /// Device-bound items that the authenticated index attributes to this device (R11-DEV-2).
    public var ownDeviceItems = 0
    /// Damaged items, including a second item with the primary key of an earlier one (R-IDX-5).
    public var damaged: [ItemDamage] = []

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
    /// Checks every record as ``verify()`` does, but reports every damaged item instead of
    /// stopping at the first, and counts foreign items and items whose key is not held
    /// separately (section 10.1 step 9).
    ///
    /// A damaged record says nothing about the others: each record has its own nonce and tags
    /// (R-REC-1), and the index (authenticated as a whole) tells where each one is.
    ///
    /// - Throws: `indexCorrupt` for a repeated item ID (R-IDX-2); format 3: `indexCorrupt` or
    ///   `structure` for a damaged node or chunk layout (R3-TREE-*, R3-FILE-2); the source's read
    ///   error.
    public func verifyEachItem() throws -> VerificationReport {
        // Format 3: every node and the chunks' layout first (§10 step 8, R3-FILE-2).
        try format3?.verifyHeap()
        let index = try self.index
        try index.checkIdentifiers()
        var report = VerificationReport()
        // R-IDX-5: both items of a primary key are reported, each naming the other: in format 3 the
        // later one in the index may be the owner's, and an item of a scope it cannot write the
        // forgery of a holder of `BK` alone or of a limited recipient (R-IDX-6).
        var seen = [PrimaryKey: (entry: IndexEntry, attributes: ItemAttributes, reported: Bool)]()
        for position in 0..<index.count {
            let entry = index.entry(at: position)
            if entry.protectionClass.isDeviceBound && keys.isOwnDeviceItem(entry.itemID) { report.ownDeviceItems += 1 }
            do {
                let item = try item(at: position, includeSecret: true)
                let key = PrimaryKey(itemClass: entry.itemClass, attributes: item.attributes)
                if let first = seen[key] {
                    let error = VaultFormatError(
                        .recordCorrupt,
                        "it has the same primary key as item \(first.entry.itemID)"
                    )
                    report.damaged.append(ItemDamage(entry: entry, attributes: item.attributes, error: error))
                    if !first.reported {
                        let other = VaultFormatError(
                            .recordCorrupt,
                            "it has the same primary key as item \(entry.itemID)"
                        )
                        report.damaged.append(
                            ItemDamage(entry: first.entry, attributes: first.attributes, error: other)
                        )
                        report.checked -= 1
                        seen[key]?.reported = true
                    }
                } else {
                    seen[key] = (entry, item.attributes, false)
                    report.checked += 1
                }
            } catch let damage as ItemDamage {
                report.damaged.append(damage)
            } catch let error as VaultFormatError where error.code == .foreignDevice {
                report.foreign += 1
            } catch let error as VaultFormatError where !ItemDamage.isDamage(error) {
                report.unavailable += 1
            }
        }
        return report
    }

    /// Checks every record as ``verifyEachItem()`` does, and throws the first damage.
    ///
    /// - Throws: The first damaged item's ``VaultFormatError`` (other than `foreignDevice` and
    ///   `keyUnavailable`).
    public func verifyReport() throws -> VerificationReport {
        let report = try verifyEachItem()
        if let first = report.damaged.first { throw first.error }
        return report
    }
}
