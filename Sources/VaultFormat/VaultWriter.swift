// vault: building the bytes of a new generation of a vault.

/// Collects the records of the next generation of a vault and encodes the file.
///
/// Records that are not replaced keep their bytes and index entries (copied as
/// ciphertext, R-REC-3); every `put` seals a new record with a fresh nonce at
/// the next generation.
///
/// Spec: Spec/format-v1.md, "Write" (section 10.2).
public struct VaultWriter: Sendable {
    /// The header of the generation being written (its generation is already incremented).
    public private(set) var header: VaultHeader
    /// The keys records are sealed with.
    public let keys: VaultKeys
    private var records: [ItemID: SealedRecord]
    private var byTag: [UInt64: [ItemID]]
    /// Deletion records, by item ID.
    public private(set) var deletions: [ItemID: Int64]

    /// Starts a new vault.
    ///
    /// - Parameters:
    ///   - vaultID: 16 random bytes.
    ///   - created: Creation time, milliseconds since the Unix epoch.
    ///   - keyslots: At least one keyslot wrapping `keys`' master or base key.
    public init(vaultID: [UInt8], created: Int64, keyslots: [Keyslot], keys: VaultKeys) throws(VaultFormatError) {
        guard vaultID.count == 16 else { throw VaultFormatError(.invalidParameter, "a vault ID is 16 bytes") }
        header = VaultHeader(vaultID: vaultID, created: created, generation: 1, keyslots: keyslots)
        self.keys = keys
        records = [:]
        byTag = [:]
        deletions = [:]
        try checkKeyslots()
    }

    /// Starts the next generation of an opened vault, copying every record as ciphertext.
    ///
    /// - Throws: `unsupportedVersion` when the vault's minor version is newer than this library (R-HDR-3),
    ///   `limit` when the generation counter is exhausted, `indexCorrupt` for a repeated item ID or a
    ///   deletion record naming a live item (R-IDX-2), or the source's read error.
    public init(updating snapshot: VaultSnapshot) throws {
        guard snapshot.header.isWritable else {
            throw VaultFormatError(
                .unsupportedVersion, "this vault was written by a newer version of vault and is read-only here")
        }
        guard snapshot.header.generation < UInt64.max else {
            throw VaultFormatError(.limit, "the vault's generation counter is exhausted")
        }
        header = snapshot.header
        header.generation += 1
        keys = snapshot.keys
        records = Dictionary(minimumCapacity: snapshot.index.count)
        byTag = Dictionary(minimumCapacity: snapshot.index.count)
        if snapshot.index.count > 0 {
            let all = try snapshot.source.read(offset: snapshot.recordsOffset, count: snapshot.header.recordsLength)
            for position in 0..<snapshot.index.count {
                let entry = snapshot.index.entry(at: position)
                let start = all.startIndex + snapshot.index.offsets[position]
                // R-IDX-2: a key holder could have written an index with a repeated ID; refuse to rewrite it.
                guard records[entry.itemID] == nil else {
                    throw VaultFormatError(.indexCorrupt, "an item ID appears twice")
                }
                records[entry.itemID] = SealedRecord(entry: entry, bytes: Array(all[start..<start + entry.recordLength]))
                byTag[entry.tag, default: []].append(entry.itemID)
            }
        }
        deletions = Dictionary(uniqueKeysWithValues: snapshot.index.deletions.map { ($0.itemID, $0.deletedAt) })
        for id in deletions.keys where records[id] != nil {
            throw VaultFormatError(.indexCorrupt, "a deletion record names a live item")
        }
    }

    /// The number of items in the next generation.
    public var count: Int { records.count }

    /// The entry of item `id`, if present.
    public func entry(for id: ItemID) -> IndexEntry? { records[id]?.entry }

    /// The entries of the next generation, unordered.
    public var entries: [IndexEntry] { records.values.map(\.entry) }

    /// The item with `primaryKey`, if present. Decrypts only records whose tag matches.
    public func itemID(for primaryKey: PrimaryKey) throws(VaultFormatError) -> ItemID? {
        for id in byTag[keys.lookupTag(primaryKey)] ?? [] {
            let record = records[id]!
            let attributes = try RecordCodec.openAttributes(
                record.bytes[...], entry: record.entry, vaultID: header.vaultID, keys: keys)
            if PrimaryKey(itemClass: record.entry.itemClass, attributes: attributes) == primaryKey { return id }
        }
        return nil
    }

    /// The stored record of item `id` (for reading attributes or the secret of a pending item).
    public func record(for id: ItemID) -> SealedRecord? { records[id] }

    /// Adds or replaces an item (matched by ``ItemDraft/id``).
    ///
    /// - Throws: `invalidParameter` when another item already has the same primary
    ///   key (R-IDX-5); `limit` past 1,000,000 items; sealing errors.
    public mutating func put(_ draft: ItemDraft, random: some RandomSource = SystemRandom()) throws(VaultFormatError) {
        if let existing = try itemID(for: draft.primaryKey), existing != draft.id {
            throw VaultFormatError(.invalidParameter, "another item already has the same primary key")
        }
        if records[draft.id] == nil && records.count >= VaultHeader.maximumRecordCount {
            throw VaultFormatError(.limit, "a vault holds at most \(VaultHeader.maximumRecordCount) items")
        }
        let sealed = try RecordCodec.seal(
            draft, version: header.generation, vaultID: header.vaultID, keys: keys, random: random)
        if let old = records[draft.id] { byTag[old.entry.tag]?.removeAll { $0 == draft.id } }
        records[draft.id] = sealed
        byTag[sealed.entry.tag, default: []].append(draft.id)
        deletions[draft.id] = nil
    }

    /// Adds a record sealed elsewhere, unchanged (for tests and tools that build damaged files).
    @_spi(Testing) public mutating func insertRaw(_ record: SealedRecord) {
        records[record.entry.itemID] = record
        byTag[record.entry.tag, default: []].append(record.entry.itemID)
    }

    /// Removes item `id` and leaves a deletion record dated `now` (R-DEL-1).
    ///
    /// - Returns: Whether the item existed.
    @discardableResult
    public mutating func remove(_ id: ItemID, now: Int64) -> Bool {
        guard let old = records.removeValue(forKey: id) else { return false }
        byTag[old.entry.tag]?.removeAll { $0 == id }
        deletions[id] = now
        return true
    }

    /// Replaces the keyslots (password change, key file added or removed); records are untouched (R-KS-5).
    public mutating func setKeyslots(_ keyslots: [Keyslot]) throws(VaultFormatError) {
        header.keyslots = keyslots
        try checkKeyslots()
    }

    private func checkKeyslots() throws(VaultFormatError) {
        guard (1...Keyslot.maximumCount).contains(header.keyslots.count) else {
            throw VaultFormatError(.invalidParameter, "a vault needs 1 to \(Keyslot.maximumCount) keyslots")
        }
    }

    /// Replaces non-critical header fields to carry (R-FLD-3).
    @_spi(Testing) public mutating func setUnknownFields(_ fields: [VaultHeader.UnknownField]) {
        header.unknownFields = fields
    }

    /// Sets the version numbers written (for building fixtures of other versions).
    @_spi(Testing) public mutating func setVersion(major: UInt16, minor: UInt16) {
        header.major = major
        header.minor = minor
    }

    /// Encodes the file: header, index, records (section 10.2).
    ///
    /// - Parameters:
    ///   - now: The current time, for dropping deletion records older than 90 days.
    ///   - random: The source of the index nonce.
    public func encode(now: Int64, random: some RandomSource = SystemRandom()) -> [UInt8] {
        let sorted = records.values.sorted { $0.entry.sortsBefore($1.entry) }
        // Keep deletion records from the last 90 days, the newest million at most (R-DEL-1).
        let cutoff = now.subtractingReportingOverflow(DeletionRecord.retentionMilliseconds)
        let kept = deletions.filter { cutoff.overflow || $0.value >= cutoff.partialValue }
            .sorted { ($0.value, $0.key) > ($1.value, $1.key) }
            .prefix(VaultHeader.maximumDeletionCount)
            .map { DeletionRecord(itemID: $0.key, deletedAt: $0.value) }
            .sorted { $0.itemID < $1.itemID }
        var header = self.header
        header.indexNonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        header.recordCount = sorted.count
        header.deletionCount = kept.count
        header.recordsLength = sorted.reduce(0) { $0 + $1.bytes.count }
        let headerBytes = header.encode(headerKey: keys.headerKey)
        var file = [UInt8]()
        file.reserveCapacity(headerBytes.count + header.indexLength + header.recordsLength)
        file.append(contentsOf: headerBytes)
        file.append(
            contentsOf: VaultIndex.encode(
                entries: sorted.map(\.entry), deletions: Array(kept), headerBytes: headerBytes,
                nonce: header.indexNonce, keys: keys))
        for record in sorted { file.append(contentsOf: record.bytes) }
        return file
    }
}
