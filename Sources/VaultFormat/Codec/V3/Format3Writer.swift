// vault: writing format-3 files: a full rewrite, and an in-place commit that appends what changed.

/// One item as a format-3 writer stores it: the item, its key domain and its history (whose
/// current event is this write).
package struct Format3Item {
    package var draft: ItemDraft
    package var domain: UInt8
    package var history: EventHistory

    package init(draft: ItemDraft, domain: UInt8 = 0, history: EventHistory) {
        self.draft = draft
        self.domain = domain
        self.history = history
    }

    /// The scope whose tree holds the item (R3-ENT-1).
    package var scope: ScopeID { ScopeID(protectionClass: draft.protectionClass, domain: domain) }
}

/// One change of an in-place commit.
package enum Format3Change {
    /// Adds or replaces the item with this ID and primary key.
    case upsert(Format3Item)
    /// Replaces the live entry of `itemID` under `primaryKey` in `scope` by a deletion entry.
    case delete(itemID: ItemID, primaryKey: PrimaryKey, scope: ScopeID, deletedAt: Int64, history: EventHistory)
}

/// What an in-place commit writes: the bytes to append at `offset` (after cutting the file
/// there), and the slot to write at `slotOffset` (Spec/format-v3.md §9.1).
package struct Format3Commit {
    package var offset: UInt64
    package var appended: [UInt8]
    package var slotOffset: Int
    package var slot: [UInt8]

    /// The file as the in-place writer leaves it, for tests and in-memory use.
    package func applied(to file: [UInt8]) -> [UInt8] {
        var result = Array(file.prefix(Int(offset))) + appended
        result.replaceSubrange(slotOffset..<slotOffset + CommitSlot.byteCount, with: slot)
        return result
    }
}

/// Package-level groundwork for issue 21 (Spec/format-v3.md §9, design draft).
package enum Format3Writer {
    /// A new file, written whole: slot 0, an empty slot 1, the header chunk, the records, one tree
    /// per scope and the root (§9.2).
    package static func create(
        header: VaultHeader,
        keys: VaultKeys,
        items: [Format3Item],
        generation: UInt64 = 1,
        counter: UInt64,
        random: some RandomSource
    ) throws(VaultFormatError) -> [UInt8] {
        var heap = Format3Heap(committed: [UInt8](repeating: 0, count: Int(CommitSlot.heapStart))[...])
        let headerChunk = HeaderChunk.encode(header)
        let headerReference = heap.append(headerChunk)
        var byScope: [ScopeID: [TreeEntry]] = [:]
        for item in items {
            let (entry, record) = try seal(item, keys: keys, vaultID: header.vaultID, random: random)
            var live = entry
            live.recordOffset = heap.append(record).offset
            byScope[item.scope, default: []].append(.live(live))
        }
        var scopes: [ScopeState] = []
        for scope in Self.scopes(of: header) {
            guard let key = keys.scopeKeys[scope] else {
                throw VaultFormatError(.keyUnavailable, "writing \(scope) needs its key")
            }
            let entries = (byScope[scope] ?? []).sorted { $0.key < $1.key }
            let top = ScopeTree(scope: scope, keys: keys, vaultID: header.vaultID).build(
                entries,
                into: &heap,
                random: random
            )
            scopes.append(
                ScopeState(
                    scope: scope,
                    counter: counter,
                    tree: top,
                    liveCount: UInt32(entries.count),
                    deletedCount: 0,
                    key: key,
                    vaultID: header.vaultID,
                    groupsHash: Format3Vault.groupsHash(of: header)
                )
            )
        }
        let rootReference = appendRoot(
            scopes: scopes,
            liveBytesBeforeRoot: UInt64(heap.appended.count),
            keys: keys,
            header: header,
            generation: generation,
            headerHash: headerReference.hash,
            heap: &heap,
            random: random
        )
        let end = CommitSlot.heapStart + UInt64(heap.appended.count)
        let slot = CommitSlot(
            generation: generation,
            commitStart: end,
            committedLength: end,
            commitHash: BLAKE2b.hash([UInt8](), length: 32),
            header: headerReference,
            root: rootReference
        )
        return slot.encoded(mac: { BLAKE2b.hash($0, key: keys.headerKey, length: 32) })
            + [UInt8](repeating: 0, count: CommitSlot.byteCount) + heap.appended
    }

    /// An in-place commit of `changes` on top of `vault`'s current slot (§9.1): new records, the
    /// changed paths of the changed scopes, a new root and the other slot.
    ///
    /// - Throws: `keyUnavailable` for a change in a scope whose key `vault`'s keys lack
    ///   (R3-SCP-3); the record codec's errors.
    package static func commit(
        _ changes: [Format3Change],
        on vault: Format3Vault,
        counter now: UInt64,
        random: some RandomSource
    ) throws(VaultFormatError) -> Format3Commit {
        let vaultID = vault.header.vaultID
        var heap = vault.heap
        var byScope: [ScopeID: [TreeKey: TreeEntry?]] = [:]
        var released: UInt64 = 0
        var counts: [ScopeID: (live: Int, deleted: Int)] = [:]
        for change in changes {
            let (scope, key, entry): (ScopeID, TreeKey, TreeEntry)
            switch change {
            case .upsert(let item):
                var (live, record) = try seal(item, keys: vault.keys, vaultID: vaultID, random: random)
                live.recordOffset = heap.append(record).offset
                (scope, key, entry) = (item.scope, live.key, .live(live))
            case .delete(let itemID, let primaryKey, let deletedScope, let deletedAt, let history):
                let deletedKey = TreeKey(tag: vault.keys.lookupTag(primaryKey), itemID: itemID)
                (scope, key, entry) = (
                    deletedScope, deletedKey, .deleted(key: deletedKey, deletedAt: deletedAt, history: history)
                )
            }
            guard vault.keys.scopeKeys[scope] != nil else {
                throw VaultFormatError(.keyUnavailable, "changing \(scope) needs its key")
            }
            var count = counts[scope] ?? (0, 0)
            if entry.isLive { count.live += 1 } else { count.deleted += 1 }
            if let old = try vault.tree(scope).entries(withTag: key.tag, top: vault.state(scope).tree, in: heap)
                .first(where: { $0.key == key })
            {
                if case .live(let live) = old {
                    count.live -= 1
                    released += UInt64(Format3Vault.indexEntry(live, scope: scope).recordLength)
                } else {
                    count.deleted -= 1
                }
            }
            counts[scope] = count
            byScope[scope, default: [:]][key] = .some(entry)
        }
        var scopes = vault.root.scopes
        for (index, state) in scopes.enumerated() {
            guard let changes = byScope[state.scope], let key = vault.keys.scopeKeys[state.scope] else { continue }
            let (top, dropped) = try vault.tree(state.scope).applying(
                changes,
                to: state.tree,
                in: &heap,
                random: random
            )
            released += dropped.reduce(0) { $0 + UInt64($1.length) }
            let count = counts[state.scope] ?? (0, 0)
            scopes[index] = ScopeState(
                scope: state.scope,
                counter: max(state.counter + 1, now),
                tree: top,
                liveCount: UInt32(Int(state.liveCount) + count.live),
                deletedCount: UInt32(Int(state.deletedCount) + count.deleted),
                key: key,
                vaultID: vaultID,
                groupsHash: Format3Vault.groupsHash(of: vault.header)
            )
        }
        let current = vault.choice.slot
        let generation = current.generation + 1
        released += UInt64(current.root.length)
        let rootReference = appendRoot(
            scopes: scopes,
            liveBytesBeforeRoot: vault.root.liveBytes + UInt64(heap.appended.count) - released,
            keys: vault.keys,
            header: vault.header,
            generation: generation,
            headerHash: current.header.hash,
            heap: &heap,
            random: random
        )
        let slot = CommitSlot(
            minor: current.minor,
            generation: generation,
            commitStart: current.committedLength,
            committedLength: current.committedLength + UInt64(heap.appended.count),
            commitHash: BLAKE2b.hash(heap.appended, length: 32),
            header: current.header,
            root: rootReference
        )
        return Format3Commit(
            offset: current.committedLength,
            appended: heap.appended,
            slotOffset: (1 - vault.choice.index) * CommitSlot.byteCount,
            slot: slot.encoded(mac: { BLAKE2b.hash($0, key: vault.keys.headerKey, length: 32) })
        )
    }

    /// The scopes of a file with `header`'s access groups: master, base, then each group (R3-ROOT-1).
    static func scopes(of header: VaultHeader) -> [ScopeID] {
        [.master, .base] + header.accessGroups.map(\.domain).sorted().map { .group($0) }
    }

    /// Seals `item`'s record with its current event as the version; the entry's offset is the
    /// caller's to set.
    private static func seal(
        _ item: Format3Item,
        keys: VaultKeys,
        vaultID: [UInt8],
        random: some RandomSource
    ) throws(VaultFormatError) -> (TreeEntry.LiveEntry, [UInt8]) {
        let sealed = try RecordCodec.seal(
            item.draft,
            version: item.history.current.recordVersion,
            vaultID: vaultID,
            keys: keys,
            domain: item.domain,
            random: random
        )
        let entry = TreeEntry.LiveEntry(
            key: TreeKey(tag: sealed.entry.tag, itemID: sealed.entry.itemID),
            itemClass: sealed.entry.itemClass,
            protectionClass: sealed.entry.protectionClass,
            attributesLength: sealed.entry.attributesLength,
            secretLength: sealed.entry.secretLength,
            recordOffset: 0,
            history: item.history
        )
        return (entry, sealed.bytes)
    }

    /// Appends the root; its `liveBytes` counts the header chunk, records and nodes the new slot
    /// reaches (`liveBytesBeforeRoot`) and the root itself.
    private static func appendRoot(
        scopes: [ScopeState],
        liveBytesBeforeRoot: UInt64,
        keys: VaultKeys,
        header: VaultHeader,
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
                vaultID: header.vaultID,
                generation: generation,
                headerHash: headerHash,
                random: random
            )
        )
    }
}

extension Format3Vault {
    /// The root's state of `scope`; every scope the header implies is in the root (R3-ROOT-1).
    func state(_ scope: ScopeID) -> ScopeState { root.scopes.first { $0.scope == scope }! }
}
