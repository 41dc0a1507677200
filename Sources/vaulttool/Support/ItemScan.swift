// vaulttool: reading every item once, with damaged and unavailable items accounted for.

import Foundation
import Synchronization
import VaultIO

/// What one pass over a vault's items found.
struct ItemScan {
    /// The items that opened and match the options.
    var items: [DecodedItem] = []
    /// Damaged items that may match: those whose attributes are readable and match, and those
    /// whose attributes are not readable at all (they cannot be ruled out).
    var damaged: [ItemDamage] = []
    /// Items of the whole vault that the credentials cannot open (another device, a locked class).
    var unavailable: [IndexEntry] = []
}

/// Takes the items of one chunk of a scan, in index order. A command that only renders items
/// (`list`) renders them here, inside the parallel chunks, instead of keeping every item.
protocol ItemSink: Sendable {
    init()
    /// Makes room for about `count` items (the size of the chunk).
    mutating func reserve(_ count: Int)
    mutating func add(_ item: DecodedItem)
}

extension ItemSink {
    mutating func reserve(_ count: Int) {}
}

/// The items themselves, for commands that need them after the scan.
struct ItemCollector: ItemSink {
    var items: [DecodedItem] = []
    mutating func reserve(_ count: Int) { items.reserveCapacity(count) }
    mutating func add(_ item: DecodedItem) { items.append(item) }
}

/// What one pass over a vault's items found, with the matching items in the sinks of its
/// chunks (in index order, chunk by chunk).
struct ChunkedScan<Sink: ItemSink> {
    var chunks: [Sink] = []
    var damaged: [ItemDamage] = []
    var unavailable: [IndexEntry] = []
}

extension ItemSelector {
    /// Reads every item once: attributes always, secrets of matching items with `includeSecrets`.
    ///
    /// - Parameter salvage: Collect damaged items in ``ItemScan/damaged`` instead of throwing.
    /// - Throws: The first ``ItemDamage`` unless `salvage`; the source's read error.
    func scan(in snapshot: VaultSnapshot, includeSecrets: Bool, salvage: Bool) throws -> ItemScan {
        let chunked = try scan(in: snapshot, includeSecrets: includeSecrets, salvage: salvage, into: ItemCollector.self)
        var out = ItemScan(damaged: chunked.damaged, unavailable: chunked.unavailable)
        if chunked.chunks.count == 1 {
            out.items = chunked.chunks[0].items
        } else {
            out.items.reserveCapacity(chunked.chunks.reduce(0) { $0 + $1.items.count })
            for chunk in chunked.chunks { out.items += chunk.items }
        }
        return out
    }

    /// Reads every item once, handing each matching item to a `Sink` of its chunk.
    ///
    /// Large vaults are read in chunks on every processor; each chunk has its own sink.
    func scan<Sink: ItemSink>(
        in snapshot: VaultSnapshot,
        includeSecrets: Bool,
        salvage: Bool,
        into: Sink.Type
    ) throws -> ChunkedScan<Sink> {
        try Progress.run("Reading items") {
            let snapshot = try snapshot.loadedForScan()
            let shared = ReadOnlyShared(value: (selector: self, snapshot: snapshot))
            let parts = try ParallelChunks.map(count: snapshot.index.count) { range in
                try shared.value.selector.scan(
                    range,
                    of: shared.value.snapshot,
                    includeSecrets: includeSecrets,
                    salvage: salvage
                ) as ChunkedScan<Sink>
            }
            guard parts.count > 1 else { return parts[0] }
            var out = ChunkedScan<Sink>()
            for part in parts {
                out.chunks += part.chunks
                out.damaged += part.damaged
                out.unavailable += part.unavailable
            }
            return out
        }
    }

    /// One pass over the items at `positions`.
    private func scan<Sink: ItemSink>(
        _ positions: Range<Int>,
        of snapshot: VaultSnapshot,
        includeSecrets: Bool,
        salvage: Bool
    ) throws -> ChunkedScan<Sink> {
        var out = ChunkedScan<Sink>()
        var sink = Sink()
        // Room for every item only when every item can match: a filter over a large vault would
        // otherwise reserve for items it drops (800 bytes each for JSON).
        sink.reserve(isEmpty ? positions.count : min(positions.count, 64))
        for position in positions {
            do {
                // The attributes first; the secret only of an item that matches.
                let item = try snapshot.item(at: position, includeSecret: false)
                guard matches(item) else { continue }
                guard includeSecrets else {
                    sink.add(item)
                    continue
                }
                sink.add(try item.addingSecret(from: snapshot, at: position))
            } catch let damage as ItemDamage {
                guard salvage else { throw damage }
                if mayMatch(damage) { out.damaged.append(damage) }
            } catch let error as VaultFormatError where !ItemDamage.isDamage(error) {
                out.unavailable.append(snapshot.index.entry(at: position))
            }
        }
        out.chunks = [sink]
        return out
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
    static func noMatch(_ scan: ItemScan, _ snapshot: VaultSnapshot) -> String {
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

extension VaultSnapshot {
    /// This snapshot, with the records section read at once when a scan of every record will
    /// read it all anyway: one read instead of one per record (not worth it for a few records).
    func loadedForScan() throws -> VaultSnapshot {
        index.count > 16 ? try withRecordsLoaded() : self
    }
}

extension DecodedItem {
    /// This item with its secret, decrypted from `snapshot` (damage named as ``ItemDamage``).
    fileprivate func addingSecret(from snapshot: VaultSnapshot, at position: Int) throws -> DecodedItem {
        do {
            return DecodedItem(entry: entry, attributes: attributes, secret: try snapshot.secret(at: position))
        } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
            throw ItemDamage(entry: entry, attributes: attributes, error: error)
        }
    }
}
