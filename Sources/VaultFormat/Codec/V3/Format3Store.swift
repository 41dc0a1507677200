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
package struct Format3Contents: Sendable {
    /// The live entries; `offsets` are absolute file offsets.
    package let index: VaultIndex
    /// The history of the entry at each position of ``index``.
    package let histories: [EventHistory]
    /// The deletion entries, by item ID.
    package let deletions: [ItemID: Format3Deletion]
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
                        entry: Self.indexEntry(live, scope: state.scope),
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
        var live: [(entry: IndexEntry, offset: Int, history: EventHistory)] = []
        live.reserveCapacity(liveCount)
        var deletions: [ItemID: Format3Deletion] = [:]
        for state in root.scopes {
            for entry in try tree(state.scope).allEntries(top: state.tree, in: heap) {
                switch entry {
                case .live(let item):
                    live.append((Self.indexEntry(item, scope: state.scope), Int(item.recordOffset), item.history))
                case .deleted(let key, let deletedAt, let history):
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
        }
        live.sort { $0.entry.sortsBefore($1.entry) }
        var rows: [UInt8] = []
        rows.reserveCapacity(live.count * (IndexEntry.byteCount + 1))
        for item in live { VaultIndex.appendRow(item.entry, withDomain: true, to: &rows) }
        let index = VaultIndex(
            format3Rows: rows,
            count: live.count,
            deletions: deletions.values.map { DeletionRecord(itemID: $0.key.itemID, deletedAt: $0.deletedAt) }
                .sorted { $0.itemID < $1.itemID },
            offsets: live.map(\.offset)
        )
        let contents = Format3Contents(index: index, histories: live.map(\.history), deletions: deletions)
        cache.withLock { $0 = contents }
        return contents
    }

    /// The full check of the heap (§10 step 8): every chunk the current slot reaches lies in the
    /// committed heap without overlapping another (R3-FILE-2), and their lengths add up to the
    /// root's `liveBytes`.
    ///
    /// - Returns: The number of bytes after the commit read (the uncommitted tail, R3-SLT-6).
    package func verifyHeap(fileLength: Int) throws -> Int {
        let heap = self.heap
        var ranges: [(UInt64, UInt64)] = [slot.header, slot.root].map { ($0.offset, UInt64($0.length)) }
        for state in root.scopes {
            let tree = tree(state.scope)
            ranges += try tree.nodeReferences(top: state.tree, in: heap).map { ($0.offset, UInt64($0.length)) }
            for case .live(let entry) in try tree.allEntries(top: state.tree, in: heap) {
                let length = Self.indexEntry(entry, scope: state.scope).recordLength
                let end = entry.recordOffset.addingReportingOverflow(UInt64(length))
                guard entry.recordOffset >= CommitSlot.heapStart, !end.overflow,
                    end.partialValue <= slot.committedLength
                else { throw VaultFormatError(.structure, "a record runs outside the committed heap") }
                ranges.append((entry.recordOffset, UInt64(length)))
            }
        }
        ranges.sort { $0.0 < $1.0 }
        for (low, high) in zip(ranges, ranges.dropFirst()) where low.0 + low.1 > high.0 {
            throw VaultFormatError(.structure, "two chunks of the vault overlap")
        }
        let total = ranges.reduce(0) { $0 + $1.1 }
        guard total == root.liveBytes else {
            throw VaultFormatError(.indexCorrupt, "the root counts \(root.liveBytes) live bytes, the chunks \(total)")
        }
        return fileLength - Int(slot.committedLength)
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
