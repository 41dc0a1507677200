// vault: the two inputs of a merge, the versions they hold, and how versions are ordered (R-MRG-5).

/// A value for each side of a merge, looked up by ``MergeSide``.
struct Sides<Value> {
    var ours: Value
    var theirs: Value

    subscript(side: MergeSide) -> Value {
        get { side == .ours ? ours : theirs }
        set { if side == .ours { ours = newValue } else { theirs = newValue } }
    }

    /// Ours' value, then theirs'.
    var both: [Value] { [ours, theirs] }
}

extension MergeSide {
    /// The other side.
    var other: MergeSide { self == .ours ? .theirs : .ours }
}

/// One input file, with its records in memory and decrypted versions cached.
final class MergeInput {
    let snapshot: VaultSnapshot
    /// The snapshot's index, read once.
    let index: VaultIndex
    let positions: ItemIDTable
    let tombs: [ItemID: Int64]
    /// The side whose master key seals this input's records: ours' when both sides have one key,
    /// `nil` for an ancestor under a third key. Inputs under one key share their records as
    /// ciphertext.
    let sealedUnder: MergeSide?
    /// The history of the version at each position: a format-3 entry's, or, for an older format,
    /// the one event of its version (Spec/format-v3.md §11).
    let histories: [EventHistory]
    /// The deletion entries: a format-3 file's, or its deletion records as a migration makes them.
    let deletionEntries: [ItemID: Format3Deletion]
    /// Which side of the merge this input is; `nil` for the ancestor.
    let side: MergeSide?
    var cache: [Int: Plain?] = [:]

    init(_ snapshot: VaultSnapshot, side: MergeSide?, sealedUnder: MergeSide?) throws {
        self.side = side
        self.snapshot = try snapshot.withRecordsLoaded()
        index = try snapshot.index
        positions = try index.positionsByID()
        tombs = Dictionary(index.deletions.map { ($0.itemID, $0.deletedAt) }, uniquingKeysWith: max)
        self.sealedUnder = sealedUnder
        if let contents = try snapshot.format3?.contents() {
            histories = contents.histories
            deletionEntries = contents.deletions
        } else {
            histories = index.entries.map { EventHistory(version: $0.version) }
            deletionEntries = Dictionary(
                uniqueKeysWithValues: tombs.map { ($0.key, Format3Deletion(migrating: $0.value, of: $0.key)) }
            )
        }
    }

    func state(_ id: ItemID) -> MergeState {
        if let position = positions.position(of: id) { return .live(position) }
        if let time = tombs[id] { return .tomb(time) }
        return .none
    }

    func entry(_ position: Int) -> IndexEntry { index.entry(at: position) }
    func bytes(_ position: Int) throws -> ArraySlice<UInt8> { try snapshot.recordBytes(at: position) }
}

/// A decrypted version: the draft that would seal it again, its content hash and its history.
struct Plain {
    let draft: ItemDraft
    let hash: [UInt8]
    let entry: IndexEntry
    /// Its format-3 history, or the one event of its version (what R-MRG-9 asks: which deletions
    /// it has seen).
    let history: EventHistory
    /// The side it was read from; `nil` for a version the merged file already holds.
    var side: MergeSide? = nil
    var rank: MergeRank {
        MergeRank(time: draft.attributes.modificationDate, live: 1, version: entry.version, hash: hash)
    }
}

/// What one input holds for an item: nothing, a deletion record (its time), or a version (its position).
enum MergeState {
    case none
    case tomb(Int64)
    case live(Int)

    var tombTime: Int64? { if case .tomb(let t) = self { t } else { nil } }
    var position: Int? { if case .live(let p) = self { p } else { nil } }
}

/// The order that decides which version is newer (R-MRG-5): modification date, then live over
/// deleted, then item version, then content hash.
struct MergeRank: Comparable {
    let time: Int64
    let live: Int
    let version: UInt64
    let hash: [UInt8]

    static func < (a: MergeRank, b: MergeRank) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.live != b.live { return a.live < b.live }
        if a.version != b.version { return a.version < b.version }
        return a.hash.lexicographicallyPrecedes(b.hash)
    }

    /// The rank of a deletion at `time`: below every version of the same time.
    static func deletion(at time: Int64) -> MergeRank { MergeRank(time: time, live: 0, version: 0, hash: []) }
}

/// A losing version waiting to be sealed as a conflict copy of item `origin` (R-MRG-8).
struct PendingCopy {
    let origin: ItemID
    let plain: Plain
}

// MARK: - Reading versions

extension Merger {
    /// The decrypted version at `position` of `input`, or `nil` when it cannot be read here.
    func plain(_ input: MergeInput, _ position: Int) throws -> Plain? {
        if let cached = input.cache[position] { return cached }
        let entry = input.entry(position)
        let result: Plain?
        do {
            let draft = try RecordCodec.openDraft(
                try input.bytes(position),
                entry: entry,
                vaultID: input.snapshot.header.vaultID,
                keys: input.snapshot.keys
            )
            result = Plain(
                draft: draft,
                hash: try contentHash(draft),
                entry: entry,
                history: input.histories[position],
                side: input.side
            )
        } catch let error as VaultFormatError where error.code == .foreignDevice || error.code == .keyUnavailable {
            result = nil
        }
        input.cache[position] = result
        return result
    }

    /// R-MRG-5: a keyed hash of a version's content: classes, encoded attributes, secret.
    func contentHash(_ draft: ItemDraft) throws -> [UInt8] {
        var attributes = try AttributesCodec.encode(draft.attributes, itemClass: draft.itemClass)
        defer { Sodium.wipe(&attributes) }
        let classByte = draft.itemClass.rawValue << 4 | draft.protectionClass.rawValue
        var length = ByteWriter(capacity: 4)
        length.u32(UInt32(attributes.count))
        return BLAKE2b.hash([[classByte], length.bytes, attributes, draft.secret], key: hashKey, length: 32)
    }
}
