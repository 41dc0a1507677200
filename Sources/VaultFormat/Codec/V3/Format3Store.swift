// vault: an opened format-3 commit: its root, its scope trees read on demand, and its contents
// read whole when a caller needs every entry.

import Synchronization

/// A format-3 file's heap as one commit sees it: the committed bytes through a ``RecordSource``,
/// and the bytes a commit in progress appends after them.
package struct Format3Heap: ChunkStore {
    let source: any RecordSource
    /// The end of the commit read; nothing after it is read (R3-FILE-1, R3-SLT-6).
    let committedLength: UInt64
    /// Bytes a commit in progress appends after `committedLength`.
    private(set) var appended: [UInt8] = []

    init(source: any RecordSource, committedLength: UInt64) {
        self.source = source
        self.committedLength = committedLength
    }

    /// The chunk's bytes, checked against its hash in constant time (R3-FILE-1).
    package func read(_ reference: ChunkReference) throws -> [UInt8] {
        let chunk = try bytes(at: reference.offset, count: Int(reference.length))
        guard SecretMemory.equal(BLAKE2b.hash(chunk, length: 32), reference.hash) else {
            throw VaultFormatError(.indexCorrupt, "a chunk does not match its hash")
        }
        return chunk
    }

    /// `count` bytes from `offset`, which must lie in the committed heap or in what this commit
    /// appended (R3-FILE-1): a record, which its AEAD authenticates instead of a hash (R3-ENT-3).
    func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        let end = offset.addingReportingOverflow(UInt64(count))
        let limit = committedLength + UInt64(appended.count)
        guard offset >= CommitSlot.heapStart, count >= 1, !end.overflow, end.partialValue <= limit else {
            throw VaultFormatError(.structure, "a chunk runs outside the committed heap")
        }
        if end.partialValue <= committedLength { return Array(try source.read(offset: Int(offset), count: count)) }
        let low = Int(offset) - Int(committedLength)
        let high = Int(end.partialValue) - Int(committedLength)
        if low >= 0 { return Array(appended[low..<high]) }
        return Array(try source.read(offset: Int(offset), count: -low)) + appended[..<high]
    }

    package mutating func append(_ chunk: [UInt8]) -> ChunkReference {
        let reference = ChunkReference(
            offset: committedLength + UInt64(appended.count),
            length: UInt32(chunk.count),
            hash: BLAKE2b.hash(chunk, length: 32)
        )
        appended += chunk
        return reference
    }
}

/// A deletion entry of a format-3 tree (Spec/format-v3.md §6.3).
package struct Format3Deletion: Hashable, Sendable {
    /// The deleted item's tag and ID.
    package var key: TreeKey
    /// The scope whose tree holds the entry: the deleted item's.
    package var scope: ScopeID
    package var deletedAt: Int64
    /// The history whose current event is the deletion.
    package var history: EventHistory
}

/// Every entry of a format-3 commit, read once: the live entries as an index in `(tag, itemID)`
/// order across all scopes, with their histories, and the deletion entries.
///
/// A class, so that every read of the store's cached copy costs one reference count, not one per
/// array it holds.
package final class Format3Contents: Sendable {
    /// The live entries; `offsets` are absolute file offsets.
    package let index: VaultIndex
    /// The history of the entry at each position of ``index``.
    package let histories: [EventHistory]
    /// The deletion entries, by item ID.
    package let deletions: [ItemID: Format3Deletion]
    /// What the full check of the heap needs of the same read (``Format3Store/verifyHeap(fileLength:)``),
    /// so that a verification reads every tree once, not three times.
    let layout: Format3Layout

    init(index: VaultIndex, histories: [EventHistory], deletions: [ItemID: Format3Deletion], layout: Format3Layout) {
        self.index = index
        self.histories = histories
        self.deletions = deletions
        self.layout = layout
    }
}

/// The chunks one commit's trees reach and their counts, gathered while the trees are read.
struct Format3Layout: Sendable {
    /// Every node and every live entry's record: offset and length.
    var chunks: [(offset: UInt64, length: UInt64)] = []
    /// Each scope's live and deletion entries, as its tree holds them.
    var counts: [ScopeID: (live: Int, deleted: Int)] = [:]
}

/// One live entry found by its lookup tag, without reading the whole tree.
package struct Format3Located: Sendable {
    /// The entry as the record codec reads it: its current event is the version.
    package let entry: IndexEntry
    /// Where the record starts, from the start of the file.
    package let recordOffset: Int
    package let history: EventHistory
}

/// A format-3 commit opened with keys: the slot's MAC, the root and the tags of the scopes the keys
/// reach are checked; nodes are read when a lookup or a scan needs them.
///
/// Spec: Spec/format-v3.md, §10.
package final class Format3Store: Sendable {
    package let header: VaultHeader
    package let keys: VaultKeys
    package let slot: CommitSlot
    package let root: Root
    let source: any RecordSource
    private let cache = Mutex<Format3Contents?>(nil)

    /// Opens the root of the commit that `header` describes (R3-ROOT-1) and checks the tags of
    /// the scopes `keys` reach (R3-SCP-1, R3-SCP-2). The slot's MAC is the caller's to check first.
    init(header: VaultHeader, keys: VaultKeys, source: any RecordSource) throws {
        guard let slot = header.commit else {
            throw VaultFormatError(.invalidParameter, "a format-3 store needs a format-3 header")
        }
        self.header = header
        self.keys = keys
        self.slot = slot
        self.source = source
        let heap = Format3Heap(source: source, committedLength: slot.committedLength)
        root = try Root.open(
            try heap.read(slot.root),
            keys: keys,
            vaultID: header.vaultID,
            generation: slot.generation,
            headerHash: slot.header.hash,
            groupDomains: header.accessGroups.map(\.domain)
        )
        try root.verifyTags(keys: keys, vaultID: header.vaultID, groupsHash: Self.groupsHash(of: header))
    }

    /// The committed heap, with nothing appended yet.
    var heap: Format3Heap { Format3Heap(source: source, committedLength: slot.committedLength) }

    /// The hash of the header's access-group fields that the master scope's tag covers (R3-SCP-2).
    static func groupsHash(of header: VaultHeader) -> [UInt8] {
        Root.groupsHash(fields: header.accessGroups.map { ($0.domain, $0.encoded) })
    }

    func tree(_ scope: ScopeID) -> ScopeTree { ScopeTree(scope: scope, keys: keys, vaultID: header.vaultID) }

    /// The root's state of `scope`; every scope the header implies is in the root (R3-ROOT-1).
    func state(_ scope: ScopeID) -> ScopeState? { root.scopes.first { $0.scope == scope } }

    /// Whether every tree has been read (by ``contents()``).
    package var isRead: Bool { cache.withLock { $0 != nil } }

    /// The number of live items, from the root alone.
    package var liveCount: Int { root.scopes.reduce(0) { $0 + Int($1.liveCount) } }

    // MARK: - Lookups

    /// The live entries whose lookup tag is `tag`, one node per level in every scope (a primary key
    /// does not name its scope, §10 step 7).
    package func located(tag: UInt64) throws -> [Format3Located] {
        if let contents = cache.withLock({ $0 }) {
            return contents.index.positions(ofTag: tag).map { position in
                Format3Located(
                    entry: contents.index.entry(at: position),
                    recordOffset: contents.index.offsets[position],
                    history: contents.histories[position]
                )
            }
        }
        var found: [Format3Located] = []
        let heap = self.heap
        for state in root.scopes {
            for case .live(let live) in try tree(state.scope).entries(withTag: tag, top: state.tree, in: heap) {
                found.append(
                    Format3Located(
                        entry: try checkedEntry(live, scope: state.scope),
                        recordOffset: Int(live.recordOffset),
                        history: live.history
                    )
                )
            }
        }
        return found.sorted { $0.entry.itemID < $1.entry.itemID }
    }

    /// The deletion entries whose tag is `tag`.
    package func deletions(tag: UInt64) throws -> [Format3Deletion] {
        if let contents = cache.withLock({ $0 }) {
            return contents.deletions.values.filter { $0.key.tag == tag }
        }
        var found: [Format3Deletion] = []
        let heap = self.heap
        for state in root.scopes {
            for case .deleted(let key, let deletedAt, let history) in try tree(state.scope).entries(
                withTag: tag,
                top: state.tree,
                in: heap
            ) {
                found.append(Format3Deletion(key: key, scope: state.scope, deletedAt: deletedAt, history: history))
            }
        }
        return found
    }

    // MARK: - Every entry

    /// Every entry of every scope, read once and kept: each node checked (R3-TREE-1 to R3-TREE-3,
    /// R3-ENT-1, R3-EV-4).
    package func contents() throws -> Format3Contents {
        if let contents = cache.withLock({ $0 }) { return contents }
        let heap = self.heap
        // The live entries as three parallel arrays: an `IndexEntry` is plain data, so sorting and
        // copying them costs no reference counting.
        var entries: [IndexEntry] = []
        var offsets: [Int] = []
        var histories: [EventHistory] = []
        entries.reserveCapacity(liveCount)
        offsets.reserveCapacity(liveCount)
        histories.reserveCapacity(liveCount)
        var deletions: [ItemID: Format3Deletion] = [:]
        var layout = Format3Layout()
        layout.chunks.reserveCapacity(liveCount + liveCount / 64 + 16)
        var nodes: [ChunkReference] = []
        for state in root.scopes {
            nodes.removeAll(keepingCapacity: true)
            var counts = (live: 0, deleted: 0)
            try tree(state.scope).forEachEntry(top: state.tree, in: heap, visiting: &nodes) { entry in
                switch entry {
                case .live(let item):
                    let indexEntry = try checkedEntry(item, scope: state.scope)
                    entries.append(indexEntry)
                    offsets.append(Int(item.recordOffset))
                    histories.append(item.history)
                    layout.chunks.append((item.recordOffset, UInt64(indexEntry.recordLength)))
                    counts.live += 1
                case .deleted(let key, let deletedAt, let history):
                    counts.deleted += 1
                    // R3-ENT-2: an item ID is in one entry of the whole vault.
                    guard deletions[key.itemID] == nil else {
                        throw VaultFormatError(.indexCorrupt, "two deletion entries name item \(key.itemID)")
                    }
                    deletions[key.itemID] = Format3Deletion(
                        key: key,
                        scope: state.scope,
                        deletedAt: deletedAt,
                        history: history
                    )
                }
            }
            layout.chunks += nodes.lazy.map { ($0.offset, UInt64($0.length)) }
            layout.counts[state.scope] = counts
        }
        // Each tree is in key order already; only entries of several scopes need sorting.
        if entries.indices.dropFirst().contains(where: { !entries[$0 - 1].sortsBefore(entries[$0]) }) {
            let order = entries.indices.sorted { entries[$0].sortsBefore(entries[$1]) }
            entries = order.map { entries[$0] }
            offsets = order.map { offsets[$0] }
            histories = order.map { histories[$0] }
        }
        let index = VaultIndex(
            format3Rows: VaultIndex.rows(of: entries, withDomain: true),
            count: entries.count,
            deletions: deletions.values.map { DeletionRecord(itemID: $0.key.itemID, deletedAt: $0.deletedAt) }
                .sorted { $0.itemID < $1.itemID },
            offsets: offsets
        )
        let contents = Format3Contents(index: index, histories: histories, deletions: deletions, layout: layout)
        cache.withLock { $0 = contents }
        return contents
    }

    /// The full check of the heap (§10 step 8): every chunk the current slot reaches lies in the
    /// committed heap without overlapping another (R3-FILE-2), and their lengths add up to the
    /// root's `liveBytes`.
    ///
    /// The trees are read by ``contents()`` (once, and kept for the reads that follow), which
    /// checks every node (R3-TREE-1 to R3-TREE-3) and gathers every chunk they reach.
    ///
    /// - Returns: The number of bytes of a file of `fileLength` after the commit read (the
    ///   uncommitted tail, R3-SLT-6).
    @discardableResult
    package func verifyHeap(fileLength: Int = 0) throws -> Int {
        let layout = try contents().layout
        for state in root.scopes {
            let counts = layout.counts[state.scope] ?? (0, 0)
            // The root's counts, which the scope's tag covers, are the tree's (R3-ROOT-1).
            guard counts.live == Int(state.liveCount), counts.deleted == Int(state.deletedCount) else {
                throw VaultFormatError(.indexCorrupt, "the root's counts of \(state.scope) are not its tree's")
            }
        }
        var ranges = layout.chunks
        ranges.reserveCapacity(ranges.count + 2)
        ranges.append((slot.header.offset, UInt64(slot.header.length)))
        ranges.append((slot.root.offset, UInt64(slot.root.length)))
        ranges.sort { $0.offset < $1.offset }
        for (low, high) in zip(ranges, ranges.dropFirst()) where low.offset + low.length > high.offset {
            throw VaultFormatError(.structure, "two chunks of the vault overlap")
        }
        let total = ranges.reduce(0) { $0 + $1.length }
        guard total == root.liveBytes else {
            throw VaultFormatError(.indexCorrupt, "the root counts \(root.liveBytes) live bytes, the chunks \(total)")
        }
        return fileLength - Int(slot.committedLength)
    }

    /// ``indexEntry(_:scope:)`` of an entry whose record lies in the committed heap (R3-FILE-1).
    ///
    /// - Throws: `structure` for a record outside it.
    func checkedEntry(_ entry: TreeEntry.LiveEntry, scope: ScopeID) throws(VaultFormatError) -> IndexEntry {
        let indexEntry = Self.indexEntry(entry, scope: scope)
        let end = entry.recordOffset.addingReportingOverflow(UInt64(indexEntry.recordLength))
        guard entry.recordOffset >= CommitSlot.heapStart, !end.overflow, end.partialValue <= slot.committedLength
        else { throw VaultFormatError(.structure, "a record of \(scope) lies outside the committed heap") }
        return indexEntry
    }

    /// The format-1 view of a live entry that the record codec seals and opens with: its current
    /// event is the record's version (Spec/format-v3.md §8).
    static func indexEntry(_ entry: TreeEntry.LiveEntry, scope: ScopeID) -> IndexEntry {
        IndexEntry(
            tag: entry.key.tag,
            itemID: entry.key.itemID,
            itemClass: entry.itemClass,
            protectionClass: entry.protectionClass,
            version: entry.history.current.recordVersion,
            attributesLength: entry.attributesLength,
            secretLength: entry.secretLength,
            domain: scope.domain
        )
    }
}

extension EventID {
    /// The event as the `version` of a record's associated data: its 8 bytes, little-endian.
    package var recordVersion: UInt64 {
        bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
