// vault: a format-3 file taken apart and committed in place with a key holder's keys (harnesses only).

/// A format-3 file as a holder of `HK` and `IK` without `MK` sees it, taken apart so that a
/// harness can change it and commit the change in place, as such a holder can: the slot's MAC
/// under `HK`, every root and node under `IK`, and the tag of each scope whose key the holder has
/// (Spec/format-v3.md §7.3). A scope it lacks the key of keeps the tag its root entry had, which
/// is all the holder can give it; a scope may also be put back whole from an older commit.
///
/// The format-3 counterpart of ``KeyHolderRewrite``, for the reliability suite's key-holder pass
/// (`Reliability/`, through `_VaultHooks`). No writer of vault uses it, and it applies no rule of
/// the format beyond the layout: header fields are raw TLVs in file order, entries are written as
/// given.
package struct Format3KeyHolderRewrite: Sendable {
    /// One scope: its root entry and its tree's entries.
    package struct Scope: Sendable {
        package var state: ScopeState
        package var entries: [TreeEntry]
        /// Whether the entries changed: the tree is built again and the root entry follows it.
        package var changed = false
    }

    /// The file the commit goes onto, cut to its current commit.
    let file: [UInt8]
    /// The keys the slot's MAC, the nodes, the root and any record sealed use.
    package let keys: VaultKeys
    /// The commit read.
    package let slot: CommitSlot
    /// The header chunk's fields, in file order.
    package var fields: [KeyHolderRewrite.Field]
    /// The root's scopes, in root order.
    package var scopes: [Scope]
    /// Records sealed by the holder, appended by ``encode(now:random:)``: item ID and bytes.
    private var planted: [(ItemID, [UInt8])] = []

    /// Takes `file` apart with `keys`, which must open its current commit (the slot's MAC, the root,
    /// the tags of the scopes `keys` reach).
    ///
    /// - Throws: The ``VaultFormatError`` of an open with `keys`; `unsupportedVersion` for a file that
    ///   is not format 3.
    package init(_ file: [UInt8], keys: VaultKeys) throws {
        let head = try VaultHead.read(file)
        let header = try VaultHeader.decode(head.bytes, fileLength: file.count)
        guard header.isVersion3, let slot = header.commit else {
            throw VaultFormatError(.unsupportedVersion, "not a format-3 file")
        }
        try VaultSnapshot.verifyMAC(head.bytes, keys: keys)
        let store = try Format3Store(header: header, keys: keys, source: InMemoryFile(file))
        self.file = Array(file.prefix(Int(slot.committedLength)))
        self.keys = keys
        self.slot = slot
        fields = KeyHolderRewrite.Field.parse(Array(head.bytes.dropFirst(CommitSlot.byteCount)))
        scopes = try store.root.scopes.map { state in
            Scope(state: state, entries: try store.tree(state.scope).allEntries(top: state.tree, in: store.heap))
        }
    }

    /// The vault ID, from the first `vaultID` field.
    package var vaultID: [UInt8] { fields.first { $0.type == FieldType.vaultID }?.value ?? [] }

    /// The scope and entry of item `id`, live or deleted.
    package func entry(of id: ItemID) -> (scope: ScopeID, entry: TreeEntry)? {
        for scope in scopes {
            if let entry = scope.entries.first(where: { $0.key.itemID == id }) { return (scope.state.scope, entry) }
        }
        return nil
    }

    /// Takes item `id`'s entry out of its tree, with no deletion entry.
    package mutating func remove(_ id: ItemID) {
        for index in scopes.indices where scopes[index].entries.contains(where: { $0.key.itemID == id }) {
            scopes[index].entries.removeAll { $0.key.itemID == id }
            scopes[index].changed = true
        }
    }

    /// Puts `entry` in `scope`'s tree in place of any entry of its item ID (in any scope).
    package mutating func put(_ entry: TreeEntry, in scope: ScopeID) {
        remove(entry.key.itemID)
        guard let index = scopes.firstIndex(where: { $0.state.scope == scope }) else { return }
        scopes[index].entries.append(entry)
        scopes[index].entries.sort { $0.key < $1.key }
        scopes[index].changed = true
    }

    /// Puts back `scope`'s root entry from `older` (an older commit of the same file): its counter,
    /// tree, counts and tag, byte for byte.
    package mutating func restore(_ scope: ScopeID, from older: Format3KeyHolderRewrite) {
        guard let index = scopes.firstIndex(where: { $0.state.scope == scope }),
            let old = older.scopes.first(where: { $0.state.scope == scope })
        else { return }
        scopes[index] = Scope(state: old.state, entries: old.entries)
    }

    /// Seals `draft` with the holder's keys in key domain `domain` as a new write of its item (a
    /// fresh event on the history of any entry it has here), and puts it in its scope's tree.
    ///
    /// - Throws: `keyUnavailable` when the keys do not reach the class in that domain.
    package mutating func plant(_ draft: ItemDraft, domain: UInt8, random: some RandomSource) throws {
        let previous = entry(of: draft.id)?.entry.history
        let event = EventID.random(avoiding: previous, from: random)
        let sealed = try RecordCodec.seal(
            draft,
            version: event.recordVersion,
            vaultID: vaultID,
            keys: keys,
            domain: domain,
            random: random
        )
        var record = Format3Record(sealed, history: previous?.recording(event) ?? EventHistory(first: event))
        record.entry.recordOffset = 0
        planted.removeAll { $0.0 == draft.id }
        planted.append((draft.id, sealed.bytes))
        put(.live(record.entry), in: record.scope)
    }

    /// Drops access group `domain`: its field, the limited stanzas of its domain and its scope.
    package mutating func dropAccessGroup(_ domain: UInt8) {
        fields.removeAll { field in
            (field.type == AccessGroupEntry.fieldType && field.value.first == domain)
                || (field.type == RecipientStanza.fieldType && field.value.count > 2 && field.value[1] == 2
                    && field.value[2] == domain)
        }
        scopes.removeAll { $0.state.scope == .group(domain) }
    }

    /// The file with this state committed in place (Spec/format-v3.md §9.1): the planted records, the
    /// trees of changed scopes and, when a field changed, the header chunk appended; a new root; the
    /// other slot, with the next generation, MAC'd under `HK`. A changed scope's counter is raised
    /// (§7.2) and its tag computed when the keys reach it, else kept.
    package func encode(now: UInt64, random: some RandomSource) throws -> [UInt8] {
        let source = InMemoryFile(file)
        var heap = Format3Heap(source: source, committedLength: slot.committedLength)
        let old = try heap.read(slot.header)
        let chunk = KeyHolderRewrite.Field.encode(fields)
        let headerReference = chunk == old ? slot.header : heap.append(chunk)
        var offsets: [ItemID: UInt64] = [:]
        for (id, bytes) in planted { offsets[id] = heap.append(bytes).offset }
        // Only a holder of MK computes the master scope's tag, which covers the group fields (R3-SCP-2).
        let groupsHash = (try? HeaderChunk.decode(chunk, slot: slot)).map(Format3Store.groupsHash(of:)) ?? []
        var states: [ScopeState] = []
        var liveBytes = UInt64(chunk.count)
        for scope in scopes {
            let tree = ScopeTree(scope: scope.state.scope, keys: keys, vaultID: vaultID)
            var state = scope.state
            let entries = scope.entries.map { entry -> TreeEntry in
                guard case .live(var live) = entry, let offset = offsets[live.key.itemID] else { return entry }
                live.recordOffset = offset
                return .live(live)
            }
            if scope.changed {
                state.tree = tree.build(entries, into: &heap, random: random)
                let live = entries.filter(\.isLive).count
                state.liveCount = UInt32(live)
                state.deletedCount = UInt32(entries.count - live)
                state.counter = max(state.counter + 1, now)
                if let key = keys.scopeKeys[state.scope] {
                    state.tag = state.expectedTag(key: key, vaultID: vaultID, groupsHash: groupsHash)
                }
            }
            liveBytes += try tree.nodeReferences(top: state.tree, in: heap).reduce(0) { $0 + UInt64($1.length) }
            for case .live(let live) in entries {
                liveBytes += UInt64(Format3Store.indexEntry(live, scope: state.scope).recordLength)
            }
            states.append(state)
        }
        let generation = slot.generation + 1
        let rootLength = UInt64(XChaCha20Poly1305.nonceByteCount + 9 + ScopeState.byteCount * states.count + 16)
        let root = Root(liveBytes: liveBytes + rootLength, scopes: states)
        let rootReference = heap.append(
            root.sealed(
                keys: keys,
                vaultID: vaultID,
                generation: generation,
                headerHash: headerReference.hash,
                random: random
            )
        )
        let newSlot = slot.next(
            minor: slot.minor,
            generation: generation,
            appended: heap.appended,
            header: headerReference,
            root: rootReference
        )
        let slotOffset = Int(newSlot.index) * CommitSlot.byteCount
        var result = file + heap.appended
        result.replaceSubrange(
            slotOffset..<slotOffset + CommitSlot.byteCount,
            with: newSlot.encoded(mac: { BLAKE2b.hash($0, key: keys.headerKey, length: 32) })
        )
        return result
    }
}

extension KeyHolderRewrite.Field {
    /// The TLV fields of a header chunk (or of a format 1-2 header's field area), in file order.
    static func parse(_ bytes: [UInt8]) -> [KeyHolderRewrite.Field] {
        var fields: [KeyHolderRewrite.Field] = []
        var offset = 0
        while offset + 6 <= bytes.count {
            let type = UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
            var size = 0
            for shift in 0..<4 { size |= Int(bytes[offset + 2 + shift]) << (8 * shift) }
            guard offset + 6 + size <= bytes.count else { break }
            fields.append(KeyHolderRewrite.Field(type: type, value: Array(bytes[offset + 6..<offset + 6 + size])))
            offset += 6 + size
        }
        return fields
    }

    /// The fields as TLVs, in the order given.
    static func encode(_ fields: [KeyHolderRewrite.Field]) -> [UInt8] {
        var writer = ByteWriter()
        for field in fields {
            writer.u16(field.type)
            writer.u32(UInt32(field.value.count))
            writer.append(field.value)
        }
        return writer.bytes
    }
}

// MARK: - Layout

/// Where one format-3 commit's chunks lie: for the tamper suite's regions (`Reliability/`).
package struct Format3CommitLayout: Sendable {
    /// What a chunk is.
    package enum Kind: String, Sendable {
        case header, root, node, record
    }

    /// One chunk the commit's slot reaches.
    package struct Chunk: Sendable {
        package var kind: Kind
        /// The scope of a node or record.
        package var scope: ScopeID?
        package var range: Range<Int>
    }

    /// The slot's position, 0 or 1.
    package var slotIndex: Int
    package var generation: UInt64
    /// The bytes this commit appended (empty for a full rewrite, whose commit hash covers nothing).
    package var appended: Range<Int>
    package var chunks: [Chunk]

    /// The layout of every complete commit of `file` that `keys` open, the current one first.
    package static func commits(of file: [UInt8], keys: VaultKeys) throws -> [Format3CommitLayout] {
        let source = InMemoryFile(file)
        var layouts: [Format3CommitLayout] = []
        for position in 0..<2 {
            let start = position * CommitSlot.byteCount
            guard file.count >= start + CommitSlot.byteCount,
                case .wellFormed(let slot, _) = CommitSlot.read(
                    file[start..<start + CommitSlot.byteCount],
                    at: position
                ),
                try slot.isComplete(
                    fileLength: UInt64(file.count),
                    hash: { BLAKE2b.hash(file[Int($0.lowerBound)..<Int($0.upperBound)], length: 32) }
                )
            else { continue }
            let heap = Format3Heap(source: source, committedLength: slot.committedLength)
            var header = try HeaderChunk.decode(try heap.read(slot.header), slot: slot)
            header.commit = slot
            let store = try Format3Store(header: header, keys: keys, source: source)
            var chunks = [
                Chunk(
                    kind: .header,
                    range: Int(slot.header.offset)..<Int(slot.header.offset) + Int(slot.header.length)
                ),
                Chunk(kind: .root, range: Int(slot.root.offset)..<Int(slot.root.offset) + Int(slot.root.length)),
            ]
            for state in store.root.scopes {
                let tree = store.tree(state.scope)
                for node in try tree.nodeReferences(top: state.tree, in: store.heap) {
                    chunks.append(
                        Chunk(
                            kind: .node,
                            scope: state.scope,
                            range: Int(node.offset)..<Int(node.offset) + Int(node.length)
                        )
                    )
                }
                for case .live(let entry) in try tree.allEntries(top: state.tree, in: store.heap) {
                    let length = Format3Store.indexEntry(entry, scope: state.scope).recordLength
                    let offset = Int(entry.recordOffset)
                    chunks.append(Chunk(kind: .record, scope: state.scope, range: offset..<offset + length))
                }
            }
            layouts.append(
                Format3CommitLayout(
                    slotIndex: position,
                    generation: slot.generation,
                    appended: Int(slot.commitStart)..<Int(slot.committedLength),
                    chunks: chunks
                )
            )
        }
        return layouts.sorted { $0.generation > $1.generation }
    }
}
