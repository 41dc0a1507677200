// vault: opening a format-3 file, and reading its items through the scope trees.

/// A format-3 file's committed bytes, read as chunks (R3-FILE-1).
package struct Format3Heap: ChunkStore {
    /// The file's first `committedLength` bytes.
    let committed: ArraySlice<UInt8>
    /// Bytes a commit in progress appends after them.
    private(set) var appended: [UInt8] = []

    init(committed: ArraySlice<UInt8>) {
        self.committed = committed
    }

    package func read(_ reference: ChunkReference) throws(VaultFormatError) -> [UInt8] {
        let chunk = try bytes(at: reference.offset, count: Int(reference.length))
        guard SecretMemory.equal(BLAKE2b.hash(chunk, length: 32), reference.hash) else {
            throw VaultFormatError(.indexCorrupt, "a chunk does not match its hash")
        }
        return chunk
    }

    /// `count` bytes of the heap from `offset`, which must lie in the committed heap
    /// (R3-FILE-1): a record, which its AEAD authenticates instead of a hash (R3-ENT-3).
    func bytes(at offset: UInt64, count: Int) throws(VaultFormatError) -> [UInt8] {
        let end = offset.addingReportingOverflow(UInt64(count))
        let limit = UInt64(committed.count + appended.count)
        guard offset >= CommitSlot.heapStart, count >= 1, !end.overflow, end.partialValue <= limit else {
            throw VaultFormatError(.structure, "a chunk runs outside the committed heap")
        }
        let (low, high) = (Int(offset), Int(end.partialValue))
        let base = committed.startIndex
        if high <= committed.count { return Array(committed[(base + low)..<(base + high)]) }
        if low >= committed.count { return Array(appended[(low - committed.count)..<(high - committed.count)]) }
        return Array(committed[(base + low)...]) + appended[..<(high - committed.count)]
    }

    package mutating func append(_ chunk: [UInt8]) -> ChunkReference {
        let reference = ChunkReference(
            offset: UInt64(committed.count + appended.count),
            length: UInt32(chunk.count),
            hash: BLAKE2b.hash(chunk, length: 32)
        )
        appended += chunk
        return reference
    }
}

/// A format-3 vault opened in memory: its current commit, keys, root and scope trees.
///
/// Package-level groundwork for issue 21: VaultIO does not read or write format 3 yet.
///
/// Spec: Spec/format-v3.md, §10 (design draft).
package struct Format3Vault {
    package let header: VaultHeader
    package let keys: VaultKeys
    package let choice: SlotChoice
    package let root: Root
    let heap: Format3Heap

    /// Opens `file` with `credentials`: slots (R3-SLT-1 to R3-SLT-4), header chunk (R3-HDR-1),
    /// keyslots, the slot's MAC (R3-SLT-5), the root (R3-ROOT-1) and the scope tags (R3-SCP-1,
    /// R3-SCP-2).
    package static func open(_ file: [UInt8], with credentials: Credentials) throws(VaultFormatError)
        -> Format3Vault
    {
        let (choice, header) = try headerOnly(file)
        let keys = try KeyHierarchy.unlock(header, with: credentials).keys
        return try open(file, choice: choice, header: header, keys: keys)
    }

    /// Opens `file` with keys held from before (the agent's, or a writer's own).
    package static func open(_ file: [UInt8], keys: VaultKeys) throws(VaultFormatError) -> Format3Vault {
        let (choice, header) = try headerOnly(file)
        return try open(file, choice: choice, header: header, keys: keys)
    }

    /// The current slot and the header, without a key (§10 steps 1 and 2).
    package static func headerOnly(_ file: [UInt8]) throws(VaultFormatError) -> (SlotChoice, VaultHeader) {
        let choice = try SlotChoice.choose(
            prefix: file.prefix(Int(CommitSlot.heapStart)),
            fileLength: UInt64(file.count)
        ) { range in
            BLAKE2b.hash(file[Int(range.lowerBound)..<Int(range.upperBound)], length: 32)
        }
        let heap = Format3Heap(committed: file.prefix(Int(choice.slot.committedLength)))
        let headerBytes: [UInt8]
        do {
            headerBytes = try heap.read(choice.slot.header)
        } catch let error where error.code == .indexCorrupt {
            throw VaultFormatError(.headerCorrupt, "the header chunk does not match its hash")
        }
        return (choice, try HeaderChunk.decode(headerBytes, slot: choice.slot))
    }

    private static func open(_ file: [UInt8], choice: SlotChoice, header: VaultHeader, keys: VaultKeys)
        throws(VaultFormatError) -> Format3Vault
    {
        let mac = BLAKE2b.hash(choice.bytes[..<480], key: keys.headerKey, length: 32)
        guard SecretMemory.equal(mac, choice.bytes[480...]) else {
            throw VaultFormatError(.headerAuthentication, "header authentication failed: the commit slot was modified")
        }
        try VaultSnapshot.checkAccessGroups(header, keys: keys)
        var keys = keys
        if let master = keys.master, !header.accessGroups.isEmpty {
            keys = KeyHierarchy.keys(
                keys,
                groups: try KeyHierarchy.accessGroupNames(of: header, master: master),
                vaultID: header.vaultID
            )
        }
        let heap = Format3Heap(committed: file.prefix(Int(choice.slot.committedLength)))
        let root = try Root.open(
            try heap.read(choice.slot.root),
            keys: keys,
            vaultID: header.vaultID,
            generation: choice.slot.generation,
            headerHash: choice.slot.header.hash,
            groupDomains: header.accessGroups.map(\.domain)
        )
        try root.verifyTags(keys: keys, vaultID: header.vaultID, groupsHash: groupsHash(of: header))
        return Format3Vault(header: header, keys: keys, choice: choice, root: root, heap: heap)
    }

    /// The full check of the heap (§10 step 8): every chunk the current slot reaches lies in the
    /// committed heap without overlapping another (R3-FILE-2), and their lengths add up to the
    /// root's `liveBytes`.
    ///
    /// - Returns: The number of bytes after the last commit (the uncommitted tail, R3-SLT-6).
    package func verifyHeap(fileLength: Int) throws(VaultFormatError) -> Int {
        var ranges: [(UInt64, UInt64)] = [choice.slot.header, choice.slot.root].map { ($0.offset, UInt64($0.length)) }
        for state in root.scopes {
            let tree = tree(state.scope)
            ranges += try tree.nodeReferences(top: state.tree, in: heap).map { ($0.offset, UInt64($0.length)) }
            for case .live(let entry) in try tree.allEntries(top: state.tree, in: heap) {
                let length = Self.indexEntry(entry, scope: state.scope).recordLength
                _ = try heap.bytes(at: entry.recordOffset, count: length)
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
        return fileLength - Int(choice.slot.committedLength)
    }

    /// The hash of the header's access-group fields that the master scope's tag covers (R3-SCP-2).
    static func groupsHash(of header: VaultHeader) -> [UInt8] {
        Root.groupsHash(fields: header.accessGroups.map { ($0.domain, $0.encoded) })
    }

    func tree(_ scope: ScopeID) -> ScopeTree { ScopeTree(scope: scope, keys: keys, vaultID: header.vaultID) }

    /// Every entry of one scope, in key order, each node checked.
    package func entries(of scope: ScopeID) throws(VaultFormatError) -> [TreeEntry] {
        guard let state = root.scopes.first(where: { $0.scope == scope }) else { return [] }
        return try tree(scope).allEntries(top: state.tree, in: heap)
    }

    /// The live item whose primary key is `primaryKey`, searched in every scope (its tag does not
    /// name one), with its scope; `nil` when there is none. Items whose keys these keys lack are
    /// passed over.
    package func item(_ primaryKey: PrimaryKey) throws(VaultFormatError) -> (ItemDraft, ScopeID, EventHistory)? {
        let tag = keys.lookupTag(primaryKey)
        for state in root.scopes {
            for case .live(let entry) in try tree(state.scope).entries(withTag: tag, top: state.tree, in: heap) {
                guard let draft = try draft(of: entry, in: state.scope) else { continue }
                if PrimaryKey(itemClass: draft.itemClass, attributes: draft.attributes) == primaryKey {
                    return (draft, state.scope, entry.history)
                }
            }
        }
        return nil
    }

    /// The item an entry names, or `nil` when these keys cannot open its class.
    package func draft(of entry: TreeEntry.LiveEntry, in scope: ScopeID) throws(VaultFormatError) -> ItemDraft? {
        let indexEntry = Self.indexEntry(entry, scope: scope)
        guard (try? keys.recordKeys(for: entry.protectionClass, domain: scope.domain)) != nil else { return nil }
        let record = try heap.bytes(at: entry.recordOffset, count: indexEntry.recordLength)
        return try RecordCodec.openDraft(record[...], entry: indexEntry, vaultID: header.vaultID, keys: keys)
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
