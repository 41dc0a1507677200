// vault: writing format-3 files: a full rewrite, and an in-place commit that appends what changed.

/// One live item as a format-3 writer places it: its scope, its entry (whose record offset the
/// writer sets) and its sealed record.
package struct Format3Record: Sendable {
    package var scope: ScopeID
    package var entry: TreeEntry.LiveEntry
    package var bytes: [UInt8]

    package init(scope: ScopeID, entry: TreeEntry.LiveEntry, bytes: [UInt8]) {
        self.scope = scope
        self.entry = entry
        self.bytes = bytes
    }

    /// The record of `sealed`, whose version is `history`'s current event, as its scope's tree
    /// holds it.
    package init(_ sealed: SealedRecord, history: EventHistory) {
        precondition(sealed.entry.version == history.current.recordVersion, "a record's version is its current event")
        scope = ScopeID(protectionClass: sealed.entry.protectionClass, domain: sealed.entry.domain)
        entry = TreeEntry.LiveEntry(
            key: TreeKey(tag: sealed.entry.tag, itemID: sealed.entry.itemID),
            itemClass: sealed.entry.itemClass,
            protectionClass: sealed.entry.protectionClass,
            attributesLength: sealed.entry.attributesLength,
            secretLength: sealed.entry.secretLength,
            recordOffset: 0,
            history: history
        )
        bytes = sealed.bytes
    }
}

/// What an in-place commit changes: records to append with their live entries, and other entries
/// to put in or take out of a scope's tree (a deletion entry, or `nil` for a key that goes).
package struct Format3Changes: Sendable {
    package var records: [Format3Record] = []
    package var entries: [ScopeID: [TreeKey: TreeEntry?]] = [:]

    package init() {}

    package var isEmpty: Bool { records.isEmpty && entries.isEmpty }
}

/// What an in-place commit writes: the bytes to append at `offset` (after cutting the file
/// there), and the slot to write at `slotOffset` (Spec/format-v3.md §9.1).
package struct Format3Commit: Sendable {
    package var offset: UInt64
    package var appended: [UInt8]
    package var slotOffset: Int
    package var slot: [UInt8]
    /// The header chunk the new slot names (appended when a field changed, else the previous one).
    package var headerChunk: [UInt8]
    /// The heap's waste after this commit: committed bytes no slot of it reaches (§9.3).
    package var waste: UInt64
    /// The bytes this commit reaches (the root's `liveBytes`).
    package var liveBytes: UInt64

    /// The new commit's head (``VaultHead``): its slot, then its header chunk.
    package var head: [UInt8] { slot + headerChunk }

    /// The file's length after this commit.
    package var fileLength: Int { Int(offset) + appended.count }

    /// The file as the in-place writer leaves it, for tests and in-memory use.
    package func applied(to file: [UInt8]) -> [UInt8] {
        var result = Array(file.prefix(Int(offset))) + appended
        result.replaceSubrange(slotOffset..<slotOffset + CommitSlot.byteCount, with: slot)
        return result
    }
}

/// Writes format-3 files (Spec/format-v3.md §9).
package enum Format3Writer {
    /// The scopes of a file with `header`'s access groups: master, base, then each group (R3-ROOT-1).
    static func scopes(of header: VaultHeader) -> [ScopeID] {
        [.master, .base] + header.accessGroups.map(\.domain).sorted().map { .group($0) }
    }

    /// A whole new file (§9.2): slot 0 holds the commit, slot 1 is empty, and the heap holds the
    /// header chunk, the records in the order given, one tree per scope and the root. Records are
    /// placed byte for byte.
    ///
    /// - Parameter counters: Each scope's counter (§7.2).
    /// - Throws: `keyUnavailable` without every scope's key (a writer without `MK` never makes a
    ///   full rewrite, R3-SCP-3).
    package static func rewrite(
        header: VaultHeader,
        keys: VaultKeys,
        records: [Format3Record],
        deletions: [Format3Deletion],
        counters: (ScopeID) -> UInt64,
        random: some RandomSource
    ) throws -> [UInt8] {
        var heap = Format3Heap(source: InMemoryFile([]), committedLength: CommitSlot.heapStart)
        let headerReference = heap.append(HeaderChunk.encode(header))
        var byScope: [ScopeID: [TreeEntry]] = [:]
        for record in records {
            var entry = record.entry
            entry.recordOffset = heap.append(record.bytes).offset
            byScope[record.scope, default: []].append(.live(entry))
        }
        for deletion in deletions {
            byScope[deletion.scope, default: []].append(
                .deleted(key: deletion.key, deletedAt: deletion.deletedAt, history: deletion.history)
            )
        }
        let groupsHash = Format3Store.groupsHash(of: header)
        var scopes: [ScopeState] = []
        for scope in Self.scopes(of: header) {
            guard let key = keys.scopeKeys[scope] else {
                throw VaultFormatError(.keyUnavailable, "writing the whole file needs the key of \(scope)")
            }
            let entries = (byScope.removeValue(forKey: scope) ?? []).sorted { $0.key < $1.key }
            try checkDistinctKeys(entries, in: scope)
            let top = ScopeTree(scope: scope, keys: keys, vaultID: header.vaultID).build(
                entries,
                into: &heap,
                random: random
            )
            let live = entries.filter(\.isLive).count
            scopes.append(
                ScopeState(
                    scope: scope,
                    counter: counters(scope),
                    tree: top,
                    liveCount: UInt32(live),
                    deletedCount: UInt32(entries.count - live),
                    key: key,
                    vaultID: header.vaultID,
                    groupsHash: groupsHash
                )
            )
        }
        if let (scope, _) = byScope.first {
            throw VaultFormatError(.invalidParameter, "an entry belongs to \(scope), which the header lacks")
        }
        let rootReference = appendRoot(
            scopes: scopes,
            liveBytesBeforeRoot: UInt64(heap.appended.count),
            keys: keys,
            vaultID: header.vaultID,
            generation: header.generation,
            headerHash: headerReference.hash,
            heap: &heap,
            random: random
        )
        let end = CommitSlot.heapStart + UInt64(heap.appended.count)
        let slot = CommitSlot(
            minor: header.minor,
            index: 0,
            generation: header.generation,
            commitStart: end,
            committedLength: end,
            commitHash: BLAKE2b.hash([UInt8](), length: 32),
            header: headerReference,
            root: rootReference
        )
        return slot.encoded(mac: { BLAKE2b.hash($0, key: keys.headerKey, length: 32) })
            + [UInt8](repeating: 0, count: CommitSlot.byteCount) + heap.appended
    }

    /// An in-place commit of `changes` on top of `store`'s commit (§9.1): the new records, the
    /// changed paths of the changed scopes, a header chunk when `header`'s fields changed, a new
    /// root, and the other slot. Scopes without changes keep their root entry byte for byte.
    ///
    /// - Parameters:
    ///   - header: The new generation's header (its generation is the new slot's).
    ///   - keys: The writer's keys; the slot's MAC is computed under their `HK`.
    ///   - now: Unix milliseconds, for the counters of changed scopes (§7.2).
    /// - Throws: `keyUnavailable` for a change in a scope whose key `keys` lack (R3-SCP-3);
    ///   `invalidParameter` when `header` drops an access group (a full rewrite does that);
    ///   the tree's and the source's errors.
    package static func commit(
        _ changes: Format3Changes,
        on store: Format3Store,
        header: VaultHeader,
        keys: VaultKeys,
        now: UInt64,
        random: some RandomSource
    ) throws -> Format3Commit {
        let current = store.slot
        var heap = store.heap
        var byScope = changes.entries
        for record in changes.records {
            var entry = record.entry
            entry.recordOffset = heap.append(record.bytes).offset
            byScope[record.scope, default: [:]][entry.key] = .some(.live(entry))
        }
        var released = UInt64(current.root.length)
        var headerReference = current.header
        let chunk = HeaderChunk.encode(header)
        if try chunk != heap.read(current.header) {
            headerReference = heap.append(chunk)
            released += UInt64(current.header.length)
        }
        let groupsHash = Format3Store.groupsHash(of: header)
        let groupsChanged = groupsHash != Format3Store.groupsHash(of: store.header)
        let scopeIDs = scopes(of: header)
        guard store.root.scopes.allSatisfy({ scopeIDs.contains($0.scope) }) else {
            throw VaultFormatError(.invalidParameter, "an in-place commit cannot drop an access group")
        }
        var scopes: [ScopeState] = []
        for scope in scopeIDs {
            let old = store.state(scope)
            let scopeChanges = byScope.removeValue(forKey: scope) ?? [:]
            if let old, scopeChanges.isEmpty, !(scope == .master && groupsChanged) {
                scopes.append(old)
                continue
            }
            guard let key = keys.scopeKeys[scope] else {
                throw VaultFormatError(.keyUnavailable, "changing \(scope) needs its key")
            }
            let tree = ScopeTree(scope: scope, keys: keys, vaultID: header.vaultID)
            var top = old?.tree ?? tree.build([], into: &heap, random: random)
            var live = Int(old?.liveCount ?? 0)
            var deleted = Int(old?.deletedCount ?? 0)
            if !scopeChanges.isEmpty {
                let applied = try tree.applying(scopeChanges, to: top, in: &heap, random: random)
                top = applied.top
                released += applied.dropped.reduce(0) { $0 + UInt64($1.length) }
                for entry in applied.replaced {
                    guard case .live(let item) = entry else {
                        deleted -= 1
                        continue
                    }
                    live -= 1
                    released += UInt64(Format3Store.indexEntry(item, scope: scope).recordLength)
                }
                for case .some(let entry) in scopeChanges.values {
                    if entry.isLive { live += 1 } else { deleted += 1 }
                }
            }
            scopes.append(
                ScopeState(
                    scope: scope,
                    counter: max((old?.counter ?? 0) + 1, now),
                    tree: top,
                    liveCount: UInt32(live),
                    deletedCount: UInt32(deleted),
                    key: key,
                    vaultID: header.vaultID,
                    groupsHash: groupsHash
                )
            )
        }
        if let (scope, _) = byScope.first {
            throw VaultFormatError(.invalidParameter, "a change belongs to \(scope), which the header lacks")
        }
        let generation = header.generation
        let appendedBeforeRoot = UInt64(heap.appended.count)
        let rootReference = appendRoot(
            scopes: scopes,
            liveBytesBeforeRoot: store.root.liveBytes + appendedBeforeRoot - released,
            keys: keys,
            vaultID: header.vaultID,
            generation: generation,
            headerHash: headerReference.hash,
            heap: &heap,
            random: random
        )
        let liveBytes = store.root.liveBytes + appendedBeforeRoot - released + UInt64(rootReference.length)
        let slot = current.next(
            minor: header.minor,
            generation: generation,
            appended: heap.appended,
            header: headerReference,
            root: rootReference
        )
        return Format3Commit(
            offset: current.committedLength,
            appended: heap.appended,
            slotOffset: Int(slot.index) * CommitSlot.byteCount,
            slot: slot.encoded(mac: { BLAKE2b.hash($0, key: keys.headerKey, length: 32) }),
            headerChunk: chunk,
            waste: slot.committedLength - CommitSlot.heapStart - liveBytes,
            liveBytes: liveBytes
        )
    }

    /// R3-TREE-3 for the entries of one new tree: strictly ascending keys (an item ID with two
    /// entries of one key would otherwise make a tree readers refuse).
    private static func checkDistinctKeys(_ sorted: [TreeEntry], in scope: ScopeID) throws(VaultFormatError) {
        for (low, high) in zip(sorted, sorted.dropFirst()) where !(low.key < high.key) {
            throw VaultFormatError(.invalidParameter, "two entries of \(scope) have the key of item \(low.key.itemID)")
        }
    }

    /// Appends the root; its `liveBytes` counts the header chunk, records and nodes the new slot
    /// reaches (`liveBytesBeforeRoot`) and the root itself.
    private static func appendRoot(
        scopes: [ScopeState],
        liveBytesBeforeRoot: UInt64,
        keys: VaultKeys,
        vaultID: [UInt8],
        generation: UInt64,
        headerHash: [UInt8],
        heap: inout Format3Heap,
        random: some RandomSource
    ) -> ChunkReference {
        let rootLength = UInt64(XChaCha20Poly1305.nonceByteCount + 9 + ScopeState.byteCount * scopes.count + 16)
        let root = Root(liveBytes: liveBytesBeforeRoot + rootLength, scopes: scopes)
        return heap.append(
            root.sealed(
                keys: keys,
                vaultID: vaultID,
                generation: generation,
                headerHash: headerHash,
                random: random
            )
        )
    }
}
