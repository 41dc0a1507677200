// vaulttool: reading every item once, with damaged and unavailable items accounted for.

import VaultIO

extension ItemSelector {
    /// Reads every item once: attributes always, secrets of matching items with `includeSecrets`.
    ///
    /// - Parameter salvage: Collect damaged items in ``ItemScan/damaged`` instead of throwing.
    /// - Throws: The first ``ItemDamage`` unless `salvage`; the source's read error.
    func scan(in snapshot: VaultSnapshot, includeSecrets: Bool, salvage: Bool) throws -> ItemScan<ItemCollector> {
        try scan(in: snapshot, includeSecrets: includeSecrets, salvage: salvage, into: ItemCollector.self)
    }

    /// Reads every item once, handing each matching item to a `Sink` of its chunk.
    func scan<Sink: ItemSink>(
        in snapshot: VaultSnapshot,
        includeSecrets: Bool,
        salvage: Bool,
        into sink: Sink.Type
    ) throws -> ItemScan<Sink> {
        let selector = self
        let select: @Sendable (DecodedItem) -> Bool = { selector.matches($0) }
        let matches = isEmpty ? nil : select
        let mayMatch: @Sendable (ItemDamage) -> Bool = { selector.mayMatch($0) }
        return try Progress.run("Reading items") { () throws -> ItemScan<Sink> in
            try snapshot.scanItems(
                into: sink,
                includeSecrets: includeSecrets,
                salvage: salvage,
                where: matches,
                mayMatch: mayMatch
            )
        }
    }

    /// Whether a damaged item could be one the options select.
    func mayMatch(_ damage: ItemDamage) -> Bool {
        if let id, id != damage.entry.itemID { return false }
        if let itemClass, itemClass != damage.entry.itemClass { return false }
        guard let attributes = damage.attributes else { return true }
        return matches(DecodedItem(entry: damage.entry, attributes: attributes, secret: nil))
    }

    /// The sentence for "nothing matches", which says when ThisDeviceOnly items could not be
    /// searched because no device secret was given.
    static func noMatch<Sink>(_ scan: ItemScan<Sink>, _ snapshot: VaultSnapshot) -> String {
        let deviceBound = scan.unavailable.filter { $0.protectionClass.isDeviceBound }.count
        guard deviceBound > 0, snapshot.keys.deviceSecret == nil else {
            // A base-scope keyslot or a recipient limited to one access group (format 2.0)
            // cannot read the other items' attributes, so they cannot be matched either.
            let unreadable = scan.unavailable.count
            guard unreadable > 0 else { return "no item matches" }
            return "no item matches among the items this credential opens; \(Output.count(unreadable)) other "
                + "item\(unreadable == 1 ? "" : "s") cannot be read with it (another access group, or a "
                + "protection class its keyslot does not reach)"
        }
        return "no item matches among the items this credential opens; \(Output.count(deviceBound)) "
            + "ThisDeviceOnly item\(deviceBound == 1 ? "" : "s") cannot be searched without this machine's "
            + "device secret (--device-secret-file or VAULTTOOL_DEVICE_SECRET_FILE; "
            + "'vaulttool device-secret init' creates one)"
    }

    /// The error for an item that exists but is bound to a device and no device secret was given.
    static func needsDeviceSecret(_ entry: IndexEntry) -> ToolError {
        ToolError(
            "item \(entry.itemID) exists but is \(entry.protectionClass): it needs this machine's device "
                + "secret; pass --device-secret-file or set VAULTTOOL_DEVICE_SECRET_FILE "
                + "('vaulttool device-secret init' creates one)",
            exitCode: .wrongCredential
        )
    }
}
