// vault: reading every item of a snapshot once, on every processor, with damaged and
// unavailable items accounted for.

/// Takes the items of one chunk of a scan, in index order.
///
/// A scan of a large vault runs in chunks on every processor, each with a sink of its own, so
/// a caller that only renders items (a listing) can render them inside the chunks instead of
/// keeping every item.
public protocol ItemSink: Sendable {
    /// An empty sink.
    init()
    /// Makes room for about `count` items (the size of the chunk).
    mutating func reserve(_ count: Int)
    /// Takes one matching item.
    mutating func add(_ item: DecodedItem)
}

extension ItemSink {
    /// Reserves nothing.
    public mutating func reserve(_ count: Int) {}
}

/// A sink that keeps the items themselves.
public struct ItemCollector: ItemSink {
    /// The items, in index order.
    public var items: [DecodedItem] = []

    /// An empty collector.
    public init() {}

    /// Reserves room for `count` items.
    public mutating func reserve(_ count: Int) { items.reserveCapacity(count) }

    /// Keeps `item`.
    public mutating func add(_ item: DecodedItem) { items.append(item) }
}

/// What one pass over a snapshot's items found.
public struct ItemScan<Sink: ItemSink>: Sendable {
    /// The matching items, in the sinks of their chunks (in index order, chunk by chunk).
    public var chunks: [Sink] = []
    /// Damaged items that may match: those whose attributes are readable and match, and those
    /// whose attributes are not readable at all (they cannot be ruled out). Only with `salvage`.
    public var damaged: [ItemDamage] = []
    /// Items that the keys held cannot open (another device, a locked class, another access group).
    public var unavailable: [IndexEntry] = []

    /// An empty result.
    public init() {}
}

extension ItemScan where Sink == ItemCollector {
    /// The matching items, in index order.
    public var items: [DecodedItem] {
        chunks.count == 1 ? chunks[0].items : chunks.flatMap(\.items)
    }
}

extension VaultSnapshot {
    /// Reads every item once: the attributes always, the secret of each matching item with
    /// `includeSecrets`. Large vaults are read in chunks on every processor, from the records
    /// section read at once.
    ///
    /// Items the keys cannot open are counted in ``ItemScan/unavailable``, never an error.
    ///
    /// - Parameters:
    ///   - sink: Where the matching items of each chunk go.
    ///   - itemClass: Only items of this class (the others are skipped before any decryption);
    ///     `nil`: every class.
    ///   - includeSecrets: Whether to decrypt the secrets of matching items.
    ///   - salvage: Collect damaged items in ``ItemScan/damaged`` instead of throwing (L-KC-17).
    ///   - matches: Which items to keep; `nil` keeps every item.
    ///   - mayMatch: Which damaged items to report; `nil` reports every one.
    /// - Throws: The first ``ItemDamage`` unless `salvage`; the source's read error.
    public func scanItems<Sink: ItemSink>(
        into sink: Sink.Type,
        itemClass: ItemClass? = nil,
        includeSecrets: Bool = false,
        salvage: Bool = false,
        where matches: (@Sendable (DecodedItem) -> Bool)? = nil,
        mayMatch: (@Sendable (ItemDamage) -> Bool)? = nil
    ) throws -> ItemScan<Sink> {
        // One read of the records section instead of one per record (not worth it for a few).
        let count = try index.count
        let snapshot = count > 16 ? try withRecordsLoaded() : self
        let parts = try ParallelChunks.map(count: count) { range in
            try snapshot.scan(range, itemClass, includeSecrets: includeSecrets, salvage: salvage, matches, mayMatch)
                as ItemScan<Sink>
        }
        guard parts.count > 1 else { return parts[0] }
        var out = ItemScan<Sink>()
        for part in parts {
            out.chunks += part.chunks
            out.damaged += part.damaged
            out.unavailable += part.unavailable
        }
        return out
    }

    /// One pass over the items at `positions`.
    private func scan<Sink: ItemSink>(
        _ positions: Range<Int>,
        _ itemClass: ItemClass?,
        includeSecrets: Bool,
        salvage: Bool,
        _ matches: (@Sendable (DecodedItem) -> Bool)?,
        _ mayMatch: (@Sendable (ItemDamage) -> Bool)?
    ) throws -> ItemScan<Sink> {
        let index = try self.index
        var out = ItemScan<Sink>()
        var sink = Sink()
        // Room for every item only when every item matches: a filter over a large vault would
        // otherwise reserve for items it drops.
        sink.reserve(matches == nil ? positions.count : min(positions.count, 64))
        for position in positions {
            if let itemClass, index.entry(at: position).itemClass != itemClass { continue }
            do {
                // With a filter, the attributes first and the secret only of an item that matches.
                let item = try self.item(at: position, includeSecret: includeSecrets && matches == nil)
                guard let matches else {
                    sink.add(item)
                    continue
                }
                guard matches(item) else { continue }
                sink.add(includeSecrets ? try addingSecret(to: item, at: position) : item)
            } catch let damage as ItemDamage {
                guard salvage else { throw damage }
                if mayMatch?(damage) ?? true { out.damaged.append(damage) }
            } catch let error as VaultFormatError where !ItemDamage.isDamage(error) {
                out.unavailable.append(index.entry(at: position))
            }
        }
        out.chunks = [sink]
        return out
    }

    /// `item` with its secret (damage named as ``ItemDamage``).
    private func addingSecret(to item: DecodedItem, at position: Int) throws -> DecodedItem {
        do {
            return DecodedItem(entry: item.entry, attributes: item.attributes, secret: try secret(at: position))
        } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
            throw ItemDamage(entry: item.entry, attributes: item.attributes, error: error)
        }
    }
}
