// vault: an opened vault: header, keys, index, and access to records.

/// Where record bytes come from: a file read with `pread`, or bytes in memory.
public protocol RecordSource: Sendable {
    /// Returns `count` bytes starting at absolute file offset `offset`.
    func read(offset: Int, count: Int) throws -> ArraySlice<UInt8>
}

/// A whole vault file held in memory.
public struct InMemoryFile: RecordSource {
    /// The file's bytes.
    public let bytes: [UInt8]

    /// Wraps file bytes.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func read(offset: Int, count: Int) throws -> ArraySlice<UInt8> {
        guard offset >= 0, count >= 0, offset <= bytes.count - count else {
            throw VaultFormatError(.truncated, "the file ends early")
        }
        return bytes[offset..<offset + count]
    }
}

/// An item with its attributes decrypted and, when asked for, its secret.
public struct DecodedItem: Sendable {
    /// The index entry (ID, classes, version, sizes).
    public let entry: IndexEntry
    /// The decrypted attributes.
    public let attributes: ItemAttributes
    /// The secret, when it was requested.
    public let secret: SecretBytes?

    /// Pairs an entry with its decrypted contents.
    public init(entry: IndexEntry, attributes: ItemAttributes, secret: SecretBytes?) {
        self.entry = entry
        self.attributes = attributes
        self.secret = secret
    }
}

/// A vault opened with a credential: its header is authenticated and its index
/// decrypted. Records are read from ``source`` on demand.
///
/// Spec: Spec/format-v1.md, "Open" (section 10.1).
public struct VaultSnapshot: Sendable {
    /// The authenticated header.
    public let header: VaultHeader
    /// The header's bytes (the index's associated data).
    public let headerBytes: [UInt8]
    /// The unlocked keys.
    public let keys: VaultKeys
    /// The index of formats 1 and 2, decrypted at open.
    let storedIndex: VaultIndex
    /// Format 3: the opened commit, whose trees are read on demand.
    package let format3: Format3Store?
    /// Which keyslot opened the vault.
    public let openedKeyslot: Int
    /// Where records are read from.
    public let source: any RecordSource
    /// Format 3: the file's other commit slot is damaged, or holds a newer commit whose bytes do
    /// not match its hash (a commit cut off by a crash, a copy taken mid-commit, or damage to the
    /// newest commit), so this snapshot is the commit before it (R3-SLT-4). Never an error by
    /// itself: a reader goes on with the commit it has, and says so.
    public internal(set) var skippedIncompleteCommit = false

    /// The index: every live entry in `(tag, itemID)` order, and the deletion records.
    ///
    /// A format-3 file reads its scope trees whole the first time (Spec/format-v3.md §10 step 8),
    /// which can fail on a damaged node; lookups by primary key read one node per level instead.
    ///
    /// - Throws: Format 3 only: `indexCorrupt` for a damaged node, or the source's read error.
    public var index: VaultIndex {
        get throws {
            guard let format3 else { return storedIndex }
            return try format3.contents().index
        }
    }

    /// The number of items, known without reading a format-3 tree.
    public var itemCount: Int { format3?.liveCount ?? storedIndex.count }

    /// The number of deletion records (format 3: deletion entries, from the root).
    public var deletionCount: Int {
        format3?.root.scopes.reduce(0) { $0 + Int($1.deletedCount) } ?? storedIndex.deletions.count
    }

    /// Format 3: the bytes the current commit reaches (the root's `liveBytes`); the rest of the
    /// committed heap is waste that a compaction drops (R3-WR-3). `nil` in earlier formats.
    public var liveByteCount: Int? { format3.map { Int($0.root.liveBytes) } }

    /// The absolute offset of the records section; 0 in format 3, whose index holds absolute offsets.
    public var recordsOffset: Int { format3 == nil ? headerBytes.count + header.indexLength : 0 }

    /// Opens a vault held entirely in memory.
    public static func open(_ file: [UInt8], with credentials: Credentials) throws -> VaultSnapshot {
        let head = try VaultHead.read(file)
        return try open(headerBytes: head.bytes, fileLength: file.count, source: InMemoryFile(file), with: credentials)
            .noting(head)
    }

    /// This snapshot, with what reading `head` found of the other commit slot (R3-SLT-4): the
    /// slot of the commit an in-place commit was built on must carry a MAC under `HK`, or the
    /// newest commit was cut off by a writer without a key that forged that slot.
    package func noting(_ head: VaultHead) -> VaultSnapshot {
        var snapshot = self
        snapshot.skippedIncompleteCommit = head.skippedIncompleteCommit
        if let slot = head.predecessorSlot {
            let macStart = CommitSlot.byteCount - 32
            let mac = BLAKE2b.hash(slot[0..<macStart], key: keys.headerKey, length: 32)
            if !Sodium.constantTimeEqual(mac, slot[macStart...]) { snapshot.skippedIncompleteCommit = true }
        }
        return snapshot
    }

    /// Opens a vault from its header bytes, reading the index from `source`.
    ///
    /// - Throws: A ``VaultFormatError`` (R-HDR-*, R-KS-*, R-IDX-*) or the source's error.
    public static func open(
        headerBytes: [UInt8],
        fileLength: Int,
        source: any RecordSource,
        with credentials: Credentials
    ) throws -> VaultSnapshot {
        let header = try VaultHeader.decode(headerBytes, fileLength: fileLength)
        let (slot, keys) = try unlock(header, headerBytes: headerBytes, with: credentials)
        return try assemble(header, headerBytes: headerBytes, source: source, keys: keys, openedKeyslot: slot)
    }

    /// Reads and decrypts the index of an authenticated header (R-IDX-1 to R-IDX-4).
    private static func assemble(
        _ header: VaultHeader,
        headerBytes: [UInt8],
        source: any RecordSource,
        keys: VaultKeys,
        openedKeyslot: Int
    ) throws -> VaultSnapshot {
        if header.isVersion3 {
            return VaultSnapshot(
                header: header,
                headerBytes: headerBytes,
                keys: keys,
                storedIndex: .empty,
                format3: try Format3Store(header: header, keys: keys, source: source),
                openedKeyslot: openedKeyslot,
                source: source
            )
        }
        let ciphertext = try source.read(offset: headerBytes.count, count: header.indexLength)
        let index = try VaultIndex.decode(ciphertext, header: header, headerBytes: headerBytes, keys: keys)
        return VaultSnapshot(
            header: header,
            headerBytes: headerBytes,
            keys: keys,
            storedIndex: index,
            format3: nil,
            openedKeyslot: openedKeyslot,
            source: source
        )
    }

    /// Opens a newer generation of a vault with keys already unlocked, without running any KDF.
    ///
    /// The header MAC is verified with `keys` (R-HDR-6); a vault re-keyed since
    /// (new master key) fails with `headerAuthentication` and must be opened with
    /// credentials again.
    ///
    /// - Parameters:
    ///   - headerBytes: The header of the newer generation, checksum and MAC included.
    ///   - fileLength: The length of the whole file.
    ///   - source: Where the index and the records are read from.
    ///   - keys: The keys unlocked from an earlier generation (``VaultSnapshot/keys``).
    ///   - openedKeyslot: The keyslot that originally produced `keys`, for reporting.
    public static func open(
        headerBytes: [UInt8],
        fileLength: Int,
        source: any RecordSource,
        keys: VaultKeys,
        openedKeyslot: Int
    ) throws -> VaultSnapshot {
        let header = try VaultHeader.decode(headerBytes, fileLength: fileLength)
        try verifyMAC(headerBytes, keys: keys)
        // Format 2.0: keys held from an earlier generation (or handed over by the agent) lack the
        // record keys of access groups added since; with the master key they are derived again.
        // The group keys depend on the groups' names too (R2-KEY-1), so the names are compared.
        var keys = keys
        if let master = keys.master, !(header.accessGroups.isEmpty && keys.groupNames.isEmpty) {
            let groups = try KeyHierarchy.accessGroupNames(of: header, master: master)
            if keys.groupNames != groups {
                keys = KeyHierarchy.keys(keys, groups: groups, vaultID: header.vaultID)
            }
        }
        return try assemble(header, headerBytes: headerBytes, source: source, keys: keys, openedKeyslot: openedKeyslot)
    }

    static func verifyMAC(_ headerBytes: [UInt8], keys: VaultKeys) throws(VaultFormatError) {
        // Format 3: the MAC of the commit slot, the head's first 512 bytes (R3-SLT-5).
        let macStart =
            VaultHead.isFormat3(headerBytes.prefix(Int(CommitSlot.heapStart)))
            ? CommitSlot.byteCount - 32 : headerBytes.count - 32
        let mac = BLAKE2b.hash(headerBytes[0..<macStart], key: keys.headerKey, length: 32)
        guard Sodium.constantTimeEqual(mac, headerBytes[macStart..<macStart + 32]) else {
            throw VaultFormatError(.headerAuthentication, "header authentication failed: the header was modified")
        }
    }

    /// Opens a keyslot and verifies the header MAC (R-KS-3, R-HDR-6).
    public static func unlock(_ header: VaultHeader, headerBytes: [UInt8], with credentials: Credentials)
        throws(VaultFormatError) -> (slot: Int, keys: VaultKeys)
    {
        let opened = try KeyHierarchy.unlock(header, with: credentials)
        try verifyMAC(headerBytes, keys: opened.keys)
        try checkAccessGroups(header, keys: opened.keys)
        return opened
    }

    /// R2-GRP-2: a holder of `MK` reads every access group's name once the MAC is verified, and a
    /// field that does not open (`headerAuthentication`) or is malformed (`structure`) fails the
    /// open. The MAC key derives from `BK`, so a holder of `BK` alone (or a limited recipient, who
    /// holds `HK`) can write a header the MAC accepts; were a damaged field only a reason to leave
    /// the group's keys out, its items would read as "needs another credential" and a domain-0
    /// record claiming the group would pass R2-GRP-6.
    static func checkAccessGroups(_ header: VaultHeader, keys: VaultKeys) throws(VaultFormatError) {
        guard let master = keys.master, !header.accessGroups.isEmpty else { return }
        _ = try KeyHierarchy.accessGroupNames(of: header, master: master)
    }

    // MARK: - Lookup

    /// The position of the item with `primaryKey`, or `nil`.
    ///
    /// Compares lookup tags only; ``attributes(at:)`` confirms the match (R-IDX-5).
    public func position(of primaryKey: PrimaryKey) throws -> Int? {
        let index = try self.index
        var found: Int?
        for position in index.positions(ofTag: keys.lookupTag(primaryKey)) {
            let entry = index.entry(at: position)
            let attributes = try self.attributes(at: position)
            guard PrimaryKey(itemClass: entry.itemClass, attributes: attributes) == primaryKey else { continue }
            // R-IDX-6: two items with one primary key answer for neither.
            if let found { throw VaultFormatError.samePrimaryKey(index.itemID(at: found), entry.itemID) }
            found = position
        }
        return found
    }

    /// The position of the item that `identity` names, in any spelling of its key (L-KC-15), or `nil`.
    ///
    /// Looks up the canonical primary key of `identity`; only when that finds nothing are internet
    /// passwords compared by canonical identity, one attribute decryption each, and the most
    /// recently modified match is taken. Records that do not open here are skipped by that comparison.
    public func position(identifiedBy identity: ItemAttributes, itemClass: ItemClass) throws -> Int? {
        let index = try self.index
        let canonical = identity.canonicalIdentity(for: itemClass)
        let key = PrimaryKey(itemClass: itemClass, attributes: canonical)
        if let position = try position(of: key) { return position }
        guard itemClass == .internetPassword else { return nil }
        var found: (position: Int, attributes: ItemAttributes)?
        for position in 0..<index.count where index.entry(at: position).itemClass == itemClass {
            let attributes: ItemAttributes
            do {
                attributes = try self.attributes(at: position)
            } catch is VaultFormatError {
                continue
            }
            guard PrimaryKey(itemClass: itemClass, attributes: attributes.canonicalIdentity(for: itemClass)) == key,
                !(found?.attributes.answers(for: key, before: attributes, itemClass: itemClass) ?? false)
            else { continue }
            found = (position, attributes)
        }
        return found?.position
    }

    /// The raw record bytes of the entry at `position`.
    public func recordBytes(at position: Int) throws -> ArraySlice<UInt8> {
        let index = try self.index
        return try source.read(
            offset: recordsOffset + index.offsets[position],
            count: index.entry(at: position).recordLength
        )
    }

    /// Decrypts the attributes of the entry at `position`.
    public func attributes(at position: Int) throws -> ItemAttributes {
        let index = try self.index
        return try openAttributes(try recordBytes(at: position), entry: index.entry(at: position))
    }

    /// Decrypts a record's attributes as every read for a caller does: authenticated, lookup tag
    /// checked (R-IDX-5), the record's access group against its key domain (R2-GRP-5, R2-GRP-6).
    func openAttributes(_ bytes: ArraySlice<UInt8>, entry: IndexEntry) throws(VaultFormatError) -> ItemAttributes {
        try RecordCodec.openCheckedAttributes(bytes, entry: entry, vaultID: header.vaultID, keys: keys)
    }

    /// Decrypts the secret of the entry at `position`.
    public func secret(at position: Int) throws -> SecretBytes {
        let index = try self.index
        return try RecordCodec.openSecret(
            try recordBytes(at: position),
            entry: index.entry(at: position),
            vaultID: header.vaultID,
            keys: keys
        )
    }

    /// Decrypts every item the keys can open; with `includeSecrets`, their secrets too.
    ///
    /// Items whose class key is missing or that belong to another device are
    /// skipped only when `skipUnavailable` is set; otherwise their error is thrown.
    public func items(includeSecrets: Bool, skipUnavailable: Bool = false) throws -> [DecodedItem] {
        let index = try self.index
        var out = [DecodedItem]()
        out.reserveCapacity(index.count)
        for position in 0..<index.count {
            let entry = index.entry(at: position)
            do {
                // The index fetched once above: format 3's is the cached scan of every tree.
                let bytes = try source.read(offset: recordsOffset + index.offsets[position], count: entry.recordLength)
                let attributes = try openAttributes(bytes, entry: entry)
                let secret =
                    includeSecrets
                    ? try RecordCodec.openSecret(bytes, entry: entry, vaultID: header.vaultID, keys: keys) : nil
                out.append(DecodedItem(entry: entry, attributes: attributes, secret: secret))
            } catch let error as VaultFormatError
                where skipUnavailable && (error.code == .foreignDevice || error.code == .keyUnavailable)
            {
                continue
            }
        }
        return out
    }

    /// Checks every record: both ciphertexts, padding, tags, and primary-key uniqueness (R-IDX-5).
    ///
    /// - Returns: The number of items checked; items this device cannot open are counted in `skipped`.
    public func verify() throws -> (checked: Int, skipped: Int) {
        // Format 3: every node and the chunks' layout first (§10 step 8, R3-FILE-2).
        try format3?.verifyHeap()
        let index = try self.index
        try index.checkIdentifiers()
        var seen = Set<PrimaryKey>()
        let items = try self.items(includeSecrets: true, skipUnavailable: true)
        for item in items {
            guard seen.insert(PrimaryKey(itemClass: item.entry.itemClass, attributes: item.attributes)).inserted else {
                throw VaultFormatError(.recordCorrupt, "two items have the same primary key")
            }
        }
        return (items.count, index.count - items.count)
    }
}
