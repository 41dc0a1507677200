// vault: building the bytes of a new generation of a vault.

/// Collects the changes of the next generation of a vault and encodes the file.
///
/// The previous generation stays as it is, in its encoded form: its index rows and
/// record bytes are copied into the new file unchanged (copied as ciphertext,
/// R-REC-3), and only the items that a `put` adds or replaces are sealed anew,
/// with a fresh nonce at the next generation. Encoding merges the two sorted
/// sequences, so a one-item change to a 100,000-item vault costs one merge and
/// large contiguous copies, not 100,000 small ones.
///
/// Spec: Spec/format-v1.md, "Write" (section 10.2).
package struct VaultWriter: Sendable {
    /// The header of the generation being written (its generation is already incremented).
    public internal(set) var header: VaultHeader
    /// The keys records are sealed with.
    public internal(set) var keys: VaultKeys
    /// Deletion records, by item ID.
    public internal(set) var deletions: [ItemID: Int64]

    /// The previous generation of a format 1 or 2 file: its index and its records section.
    var base: Base?
    /// The previous commit of a format-3 file, read through its trees (Spec/format-v3.md).
    var format3: Format3Base?
    /// Format 3: the history of each record sealed in this generation, its current event first.
    var histories: [ItemID: EventHistory] = [:]
    /// Format 3: the deletion entries this generation makes.
    var deletedEntries: [ItemID: Format3Deletion] = [:]
    /// Format 3: IDs this writer's caller drew at random for new items, which no entry holds.
    var freshIDs: Set<ItemID> = []
    /// Whether the next generation must be written whole (a rekey or a migration).
    var rewritesWhole = false
    /// Whether a write over a deletion entry keeps it as the item's shadow (R-DEL-3, a SHOULD).
    /// Only the fixture generator turns it off: the frozen format-3 files predate the rule.
    package var keepsDeletionShadows = true
    /// Base items that this generation removes or replaces.
    var dropped: Set<ItemID> = []
    /// Items sealed in this generation (added or replaced).
    var changed: [ItemID: SealedRecord] = [:]
    var changedByTag: [UInt64: [ItemID]] = [:]

    struct Base: Sendable {
        let index: VaultIndex
        let records: ArraySlice<UInt8>
        let positions: ItemIDTable

        func record(at position: Int) -> SealedRecord {
            let entry = index.entry(at: position)
            let start = records.startIndex + index.offsets[position]
            return SealedRecord(entry: entry, bytes: Array(records[start..<start + entry.recordLength]))
        }

        /// When the deletion record of `id` dates its deletion, if there is one (records sorted by ID).
        func deletedAt(_ id: ItemID) -> Int64? {
            let deletions = index.deletions
            var (low, high) = (0, deletions.count)
            while low < high {
                let mid = (low + high) / 2
                if deletions[mid].itemID < id { low = mid + 1 } else { high = mid }
            }
            return low < deletions.count && deletions[low].itemID == id ? deletions[low].deletedAt : nil
        }
    }

    /// Starts a new vault.
    ///
    /// - Parameters:
    ///   - vaultID: 16 random bytes.
    ///   - created: Creation time, milliseconds since the Unix epoch.
    ///   - keyslots: At least one keyslot wrapping `keys`' master or base key.
    public init(vaultID: [UInt8], created: Int64, keyslots: [Keyslot], keys: VaultKeys) throws {
        guard vaultID.count == 16 else { throw VaultFormatError(.invalidParameter, "a vault ID is 16 bytes") }
        header = VaultHeader(vaultID: vaultID, created: created, generation: 1, keyslots: keyslots)
        self.keys = keys
        base = nil
        deletions = [:]
        try checkKeyslots()
    }

    /// Starts the next generation of an opened vault, keeping every record as ciphertext.
    ///
    /// - Throws: `unsupportedVersion` when the vault's minor version is newer than this library (R-HDR-3),
    ///   `limit` when the generation counter is exhausted, `indexCorrupt` for a repeated item ID or a
    ///   deletion record naming a live item (R-IDX-2), or the source's read error.
    public init(updating snapshot: VaultSnapshot) throws {
        guard snapshot.header.isWritable else {
            throw VaultFormatError(
                .unsupportedVersion,
                "this vault was written by a newer version of vault and is read-only here",
                formatVersion: FormatVersion(major: snapshot.header.major, minor: snapshot.header.minor)
            )
        }
        guard snapshot.header.generation < UInt64.max else {
            throw VaultFormatError(.limit, "the vault's generation counter is exhausted")
        }
        // Format 2.0: a limited recipient holds no base key and writes nothing (R2-RCP-4).
        guard snapshot.keys.base != nil else {
            throw VaultFormatError(
                .keyUnavailable,
                "a recipient limited to one access group opens the vault read-only"
            )
        }
        header = snapshot.header
        header.generation += 1
        keys = snapshot.keys
        if let store = snapshot.format3 {
            format3 = Format3Base(store)
            deletions = [:]
            return
        }
        // R-IDX-2: a key holder could have written an index with a repeated ID; refuse to rewrite it.
        let index = try snapshot.index
        let positions = try index.positionsByID()
        let records = try snapshot.source.read(offset: snapshot.recordsOffset, count: snapshot.header.recordsLength)
        base = Base(index: index, records: records, positions: positions)
        deletions = Dictionary(uniqueKeysWithValues: index.deletions.map { ($0.itemID, $0.deletedAt) })
    }

    // MARK: - Reading the next generation

    /// The number of items in the next generation.
    public var count: Int {
        (base?.index.count ?? format3?.store.liveCount ?? 0) - dropped.count + changed.count
    }

    /// The entry of item `id`, if present.
    ///
    /// - Throws: Format 3, for an item not looked up by its primary key before: a damaged node, or
    ///   the source's read error (every tree is read once).
    public func entry(for id: ItemID) throws -> IndexEntry? {
        if let record = changed[id] { return record.entry }
        guard !dropped.contains(id) else { return nil }
        if let base, let position = base.positions.position(of: id) { return base.index.entry(at: position) }
        return try baseLocated(id)?.entry
    }

    /// The entries of the next generation, unordered.
    ///
    /// - Throws: Format 3: a damaged node, or the source's read error (every tree is read once).
    public var entries: [IndexEntry] {
        get throws {
            var out = changed.values.map(\.entry)
            if let base {
                for position in 0..<base.index.count {
                    let entry = base.index.entry(at: position)
                    if !dropped.contains(entry.itemID) { out.append(entry) }
                }
            }
            if let format3 {
                let index = try format3.store.contents().index
                for position in 0..<index.count where !dropped.contains(index.itemID(at: position)) {
                    out.append(index.entry(at: position))
                }
            }
            return out
        }
    }

    /// The stored record of item `id` (for reading attributes or the secret of a pending item).
    ///
    /// - Throws: As ``entry(for:)``.
    public func record(for id: ItemID) throws -> SealedRecord? {
        if let record = changed[id] { return record }
        guard !dropped.contains(id) else { return nil }
        if let base, let position = base.positions.position(of: id) { return base.record(at: position) }
        guard let format3, let located = try baseLocated(id) else { return nil }
        return SealedRecord(entry: located.entry, bytes: try format3.recordBytes(located))
    }

    /// The item with `primaryKey`, if present. Decrypts only records whose tag matches.
    public func itemID(for primaryKey: PrimaryKey) throws -> ItemID? {
        let tag = keys.lookupTag(primaryKey)
        var candidates = changedByTag[tag] ?? []
        if let base {
            for position in base.index.positions(ofTag: tag) {
                let id = base.index.itemID(at: position)
                if !dropped.contains(id) { candidates.append(id) }
            }
        }
        if let format3 {
            candidates += try format3.candidates(tag: tag).map(\.entry.itemID).filter { !dropped.contains($0) }
        }
        var found: ItemID?
        for id in candidates where id != found {
            guard let record = try self.record(for: id) else { continue }
            let attributes = try RecordCodec.openAttributes(
                record.bytes[...],
                entry: record.entry,
                vaultID: header.vaultID,
                keys: keys
            )
            guard PrimaryKey(itemClass: record.entry.itemClass, attributes: attributes) == primaryKey else { continue }
            // R-IDX-6: never write over one of two items that claim the key.
            if let found { throw VaultFormatError.samePrimaryKey(found, id) }
            found = id
        }
        return found
    }

    // MARK: - Changing

    /// Adds or replaces an item (matched by ``ItemDraft/id``).
    ///
    /// - Throws: `invalidParameter` when another item already has the same primary
    ///   key (R-IDX-5); `limit` past 1,000,000 items; sealing errors.
    ///
    /// In a file of format 1.1, a device-bound item is stored under its device-tagged ID
    /// (R11-DEV-1): the draft's ID with its last 8 bytes replaced by this device's tag. When
    /// that differs from the draft's ID and an item with the draft's ID exists, that item is
    /// removed with a deletion record dated `now` (R-DEL-1).
    ///
    /// - Returns: The ID the item is stored under.
    ///
    /// - Parameter isNew: The caller drew `draft.id` at random for a new item just now, so no entry
    ///   holds it: a format-3 writer then does not read every tree to make sure.
    @discardableResult
    public mutating func put(
        _ draft: ItemDraft,
        now: Int64? = nil,
        random: some RandomSource = SystemRandom(),
        isNew: Bool = false
    ) throws -> ItemID {
        var draft = draft
        if isNew { freshIDs.insert(draft.id) }
        if header.followsVersion11Rules && draft.protectionClass.isDeviceBound && !keys.isOwnDeviceItem(draft.id) {
            guard let tagged = keys.deviceTaggedID(from: draft.id) else {
                throw VaultFormatError(
                    .deviceSecretRequired,
                    "\(draft.protectionClass) items need this machine's device secret, and none was given"
                )
            }
            let old = draft.id
            draft.id = tagged
            if isNew { freshIDs.insert(tagged) }
            try putChecked(draft, replacing: old, random: random)
            if let now {
                try remove(old, now: now, random: random)
            } else {
                try forget(old)
            }
            return tagged
        }
        try putChecked(draft, replacing: nil, random: random)
        return draft.id
    }

    /// Seals and stores `draft`; `replacing` is an item the caller removes right after.
    /// Format 3: seals `draft` with `history` as its history (its current event is the record's
    /// version), as a merge places a version it decided (Spec/merge.md R-MRG-18): the kept
    /// version sealed again under the kept master key, with the history the merge gave it, or a
    /// conflict copy.
    package mutating func put(_ draft: ItemDraft, history: EventHistory, random: some RandomSource = SystemRandom())
        throws
    {
        precondition(header.isVersion3, "a history is written in format 3 only")
        try putChecked(draft, replacing: nil, history: history, random: random)
    }

    private mutating func putChecked(
        _ draft: ItemDraft,
        replacing: ItemID?,
        history given: EventHistory? = nil,
        random: some RandomSource
    ) throws {
        if let existing = try itemID(for: draft.primaryKey), existing != draft.id, existing != replacing {
            throw VaultFormatError(.invalidParameter, "another item already has the same primary key")
        }
        if count >= VaultHeader.maximumRecordCount {
            var replaces = try entry(for: draft.id) != nil
            if !replaces, let replacing { replaces = try entry(for: replacing) != nil }
            if !replaces {
                throw VaultFormatError(.limit, "a vault holds at most \(VaultHeader.maximumRecordCount) items")
            }
        }
        // Format 3: the write is a new event on top of the item's history (R3-EV-1), and the
        // event is the record's version (Spec/format-v3.md §8).
        var history: EventHistory? = nil
        var version = header.generation
        if header.isVersion3 {
            let next = try given ?? nextHistory(of: draft.id, random: random)
            history = next
            version = next.current.recordVersion
            if given == nil { try keepDeletionAsShadow(writtenOver: draft.id) }
        }
        let sealed = try RecordCodec.seal(
            draft,
            version: version,
            vaultID: header.vaultID,
            keys: keys,
            domain: try keyDomain(forAccessGroup: draft.attributes.accessGroup),
            random: random
        )
        try store(sealed, history: history)
    }

    /// Adds a record sealed elsewhere, unchanged (for tests and tools that build damaged files,
    /// and a merge's adoptions). In format 3 the record's version must be `history`'s current
    /// event; without `history`, the record's version is taken as its only event.
    package mutating func insertRaw(_ record: SealedRecord, history: EventHistory? = nil) throws {
        var history = history
        if history == nil, header.isVersion3 { history = EventHistory(version: record.entry.version) }
        try store(record, history: history)
    }

    private mutating func store(_ record: SealedRecord, history: EventHistory?) throws {
        let id = record.entry.itemID
        try forget(id)
        changed[id] = record
        changedByTag[record.entry.tag, default: []].append(id)
        deletions[id] = nil
        deletedEntries[id] = nil
        histories[id] = history
    }

    /// Removes `id` from the next generation; returns whether it was there.
    @discardableResult
    mutating func forget(_ id: ItemID) throws -> Bool {
        if let old = changed.removeValue(forKey: id) {
            changedByTag[old.entry.tag]?.removeAll { $0 == id }
            histories[id] = nil
            if try baseHolds(id) { dropped.insert(id) }
            return true
        }
        guard !dropped.contains(id), try baseHolds(id) else { return false }
        dropped.insert(id)
        return true
    }

    /// Removes item `id` and leaves a deletion record dated `now` (R-DEL-1); in format 3, a
    /// deletion entry whose event follows the item's history (R3-EV-1).
    ///
    /// - Returns: Whether the item existed.
    @discardableResult
    public mutating func remove(_ id: ItemID, now: Int64, random: some RandomSource = SystemRandom()) throws -> Bool {
        let entry = try self.entry(for: id)
        guard let entry, try forget(id) else { return false }
        deletions[id] = now
        if header.isVersion3 {
            try recordDeletionEntry(of: entry, at: now, history: try nextHistory(of: id, random: random))
        }
        return true
    }

    /// Replaces the keyslots (password change, key file added or removed); records are untouched
    /// (R-KS-5). To replace the master key as well, see ``rekey(to:keyslots:droppingForeign:now:random:)``.
    public mutating func setKeyslots(_ keyslots: [Keyslot]) throws {
        header.keyslots = keyslots
        try checkKeyslots()
    }

    func checkKeyslots() throws {
        guard (1...Keyslot.maximumCount).contains(header.keyslots.count) else {
            throw VaultFormatError(.invalidParameter, "a vault needs 1 to \(Keyslot.maximumCount) keyslots")
        }
        // R-KS-8: never write keyslots whose Argon2id work together readers refuse.
        try KDFParameters.validateTotal(of: header.keyslots)
        // R-HDR-4: never write a header that readers refuse.
        guard header.encodedByteCount <= VaultHeader.maximumByteCount else {
            throw VaultFormatError(.limit, "the header would exceed \(VaultHeader.maximumByteCount) bytes")
        }
    }

    // MARK: - Format 1.1

    /// Raises a 1.0 file to format 1.1 (R11-MIG-1); a 1.1 file is left as it is.
    ///
    /// Call ``retagDeviceItems(now:)`` afterwards, and rewrap the password keyslots
    /// whose credentials are known, so that they take the NFC form (R11-PW-1).
    ///
    /// - Returns: Whether the version changed.
    @discardableResult
    public mutating func upgradeToVersion11() -> Bool {
        guard header.major == 1, header.minor < 1 else { return false }
        header.minor = 1
        return true
    }

    /// What ``retagDeviceItems(now:)`` did.
    package typealias RetagReport = Version11UpgradeReport

    /// Moves every device-bound item of this device whose ID lacks this device's tag to its
    /// device-tagged ID (R11-DEV-1, R11-MIG-1), resealing it; the old ID gets a deletion record.
    ///
    /// - Throws: `recordCorrupt` when a record is damaged (nothing is changed then by the caller's
    ///   transaction); `deviceSecretRequired` when the file is 1.1 and there is no device secret
    ///   but the vault holds device-bound items.
    public mutating func retagDeviceItems(now: Int64, random: some RandomSource = SystemRandom())
        throws -> RetagReport
    {
        var report = RetagReport()
        guard header.followsVersion11Rules else { return report }
        let current = try entries
        for entry in current where entry.protectionClass.isDeviceBound && !keys.isOwnDeviceItem(entry.itemID) {
            guard let record = try self.record(for: entry.itemID) else { continue }
            let opened = Result { () throws(VaultFormatError) in
                try RecordCodec.openDraft(record.bytes[...], entry: entry, vaultID: header.vaultID, keys: keys)
            }
            let draft: ItemDraft
            switch opened {
            case .success(let opened): draft = opened
            case .failure(let error) where error.code == .foreignDevice:
                report.foreign += 1
                continue
            case .failure(let error) where error.code == .keyUnavailable:
                report.pending += 1
                continue
            case .failure(let error): throw error
            }
            try put(draft, now: now, random: random)
            report.retagged += 1
        }
        return report
    }

    /// Replaces non-critical header fields to carry (R-FLD-3).
    package mutating func setUnknownFields(_ fields: [VaultHeader.UnknownField]) {
        header.unknownFields = fields
    }

    /// Sets the version numbers written (for building fixtures of other versions).
    package mutating func setVersion(major: UInt16, minor: UInt16) {
        header.major = major
        header.minor = minor
    }

    // MARK: - Encoding

    /// Encodes the file: header, index, records (section 10.2).
    ///
    /// - Parameters:
    ///   - now: The current time, for dropping deletion records older than 90 days.
    ///   - random: The source of the index nonce.
    public func encode(now: Int64, random: some RandomSource = SystemRandom()) throws -> [UInt8] {
        if header.isVersion3 { return try encodeWhole(now: now, random: random) }
        let fresh = changed.values.sorted { $0.entry.sortsBefore($1.entry) }
        // Base positions that do not survive, in index order.
        let droppedPositions = dropped.compactMap { base?.positions.position(of: $0) }.sorted()
        var header = self.header
        header.unknownFields = header.unknownFieldsWithoutOrphanedBindings  // R-TPM-5
        header.indexNonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        header.recordCount = count
        header.recordsLength = fresh.reduce(0) { $0 + $1.bytes.count }
        if let base {
            header.recordsLength +=
                base.records.count - droppedPositions.reduce(0) { $0 + base.index.entry(at: $1).recordLength }
        }
        let kept = keptDeletions(now: now)
        header.deletionCount = kept.count
        let headerBytes = header.encode(headerKey: keys.headerKey)

        // Records go straight into the file after room for the index, which is sealed last.
        var file = [UInt8]()
        file.reserveCapacity(headerBytes.count + header.indexLength + header.recordsLength)
        file.append(contentsOf: headerBytes)
        let indexStart = file.count
        file.append(contentsOf: repeatElement(0, count: header.indexLength))
        var rows = [UInt8]()
        rows.reserveCapacity(header.recordCount * header.indexEntryByteCount + kept.count * DeletionRecord.byteCount)
        merge(fresh, skipping: droppedPositions, rows: &rows, records: &file)
        let index = VaultIndex.seal(
            entries: &rows,
            deletions: kept,
            headerBytes: headerBytes,
            nonce: header.indexNonce,
            keys: keys
        )
        file.replaceSubrange(indexStart..<indexStart + index.count, with: index)
        return file
    }

    /// Merges the surviving base entries with the fresh records, both sorted by (tag, item ID).
    /// Base rows and records are copied in contiguous runs: between two fresh records or
    /// dropped entries, the base contributes one slice of its index and one of its records.
    private func merge(
        _ fresh: [SealedRecord],
        skipping droppedPositions: [Int],
        rows: inout [UInt8],
        records: inout [UInt8]
    ) {
        var position = 0
        var nextFresh = 0
        var nextDropped = 0
        if let base {
            let count = base.index.count
            /// Copies base entries `position..<end` and moves past them.
            func copyBase(upTo end: Int) {
                guard end > position else { return }
                if base.index.stride == header.indexEntryByteCount {
                    base.index.appendRows(position..<end, to: &rows)
                } else {
                    // Migration to format 2.0: each row gains its key domain, 0 (R2-MIG-1).
                    for p in position..<end {
                        VaultIndex.appendRow(base.index.entry(at: p), withDomain: header.isVersion2, to: &rows)
                    }
                }
                let from = base.records.startIndex + base.index.offsets[position]
                let to = end < count ? base.records.startIndex + base.index.offsets[end] : base.records.endIndex
                records.append(contentsOf: base.records[from..<to])
                position = end
            }
            while position < count {
                // The run ends at the next dropped entry or before the next fresh record.
                var end = nextDropped < droppedPositions.count ? droppedPositions[nextDropped] : count
                if nextFresh < fresh.count {
                    end =
                        position
                        + upperBound(in: position..<end) {
                            base.index.entry(at: $0, sortsBefore: fresh[nextFresh].entry)
                        }
                }
                copyBase(upTo: end)
                if nextDropped < droppedPositions.count && position == droppedPositions[nextDropped] {
                    position += 1
                    nextDropped += 1
                } else if nextFresh < fresh.count && position < count {
                    append(fresh[nextFresh], rows: &rows, records: &records)
                    nextFresh += 1
                }
            }
        }
        while nextFresh < fresh.count {
            append(fresh[nextFresh], rows: &rows, records: &records)
            nextFresh += 1
        }
    }

    private func append(_ record: SealedRecord, rows: inout [UInt8], records: inout [UInt8]) {
        VaultIndex.appendRow(record.entry, withDomain: header.isVersion2, to: &rows)
        records.append(contentsOf: record.bytes)
    }

    /// The number of leading positions in `range` for which `predicate` holds (it must hold
    /// for a prefix and fail after it): a binary search.
    private func upperBound(in range: Range<Int>, _ predicate: (Int) -> Bool) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            if predicate(mid) { low = mid + 1 } else { high = mid }
        }
        return low - range.lowerBound
    }

    /// Deletion records from the last 90 days, the newest million at most (R-DEL-1, R-DEL-2).
    func keptDeletions(from deletions: [ItemID: Int64]? = nil, now: Int64) -> [DeletionRecord] {
        let cutoff = now.subtractingReportingOverflow(DeletionRecord.retentionMilliseconds)
        return (deletions ?? self.deletions).filter { cutoff.overflow || $0.value >= cutoff.partialValue }
            .sorted { ($0.value, $0.key) > ($1.value, $1.key) }
            .prefix(VaultHeader.maximumDeletionCount)
            .map { DeletionRecord(itemID: $0.key, deletedAt: $0.value) }
            .sorted { $0.itemID < $1.itemID }
    }
}

/// What upgrading a vault to format 1.1 did to its device-bound items (R11-MIG-1).
public struct Version11UpgradeReport: Equatable, Sendable {
    /// Items of this device moved to their device-tagged ID.
    public var retagged = 0
    /// Device-bound items that may be this device's but whose class key is not held
    /// (a base-scope keyslot opened the vault); they keep their ID and the 1.0 attribution.
    public var pending = 0
    /// Device-bound items of other devices, left as they are.
    public var foreign = 0

    /// Creates a report.
    public init(retagged: Int = 0, pending: Int = 0, foreign: Int = 0) {
        self.retagged = retagged
        self.pending = pending
        self.foreign = foreign
    }
}
