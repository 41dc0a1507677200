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
        try Progress.run("Reading items") { () throws -> ItemScan<Sink> in
            try snapshot.scanItems(matching: query, into: sink, includeSecrets: includeSecrets, salvage: salvage)
        }
    }
}
