// vault: merging two copies of one vault into a new generation.

/// Merges two copies of the same vault (same vault ID) into the next generation of one of them.
///
/// Three-way when the common ancestor is given, two-way otherwise. Items are matched by ID;
/// deletion records are tombstones; when both sides changed an item, the newer version keeps the
/// ID and the other is kept as a *conflict copy*, a new item flagged with attribute tag
/// ``conflictMarkerTag``. Records unchanged on both sides are copied as ciphertext.
///
/// ```swift
/// let result = try VaultMerge.merge(ours: mine, theirs: other, base: ancestor)
/// let bytes = result.writer.encode(now: Vault.currentTime())
/// for conflict in result.report.conflicts { print(conflict.itemID, conflict.kind) }
/// ```
///
/// Spec: Spec/merge.md (R-MRG-1 to R-MRG-17).
public enum VaultMerge {
    /// The attribute tag of a conflict copy's marker: the origin item's ID (16 bytes) and the
    /// version it had (8 bytes, big-endian). Readers that do not know it preserve it (R-ATT-2).
    public static let conflictMarkerTag: UInt8 = 0x70

    /// The merged generation, ready to encode, and what the merge decided.
    package struct Result: Sendable {
        /// The next generation of the side whose keys were kept (``MergeReport/keysFrom``).
        package var writer: VaultWriter
        /// What the merge decided.
        package let report: MergeReport
    }

    /// Merges `theirs` into `ours`.
    ///
    /// - Parameters:
    ///   - ours: The vault merged into; its keyslots win when both sides changed them.
    ///   - theirs: The vault merged in.
    ///   - base: The common ancestor, for a three-way merge; `nil` for two-way.
    ///   - options: What to do with records that cannot be carried.
    /// - Returns: The writer of the merged generation and the report.
    /// - Throws: ``VaultMergeError`` `differentVaults`, `masterKeyRequired`, `unreadableRecords`;
    ///   ``VaultFormatError`` `recordCorrupt` for a damaged record, `limit`.
    package static func merge(
        ours: VaultSnapshot,
        theirs: VaultSnapshot,
        base: VaultSnapshot? = nil,
        options: MergeOptions = MergeOptions()
    ) throws -> Result {
        var merger = try Merger(ours: ours, theirs: theirs, base: base, options: options)
        return try merger.run()
    }

    /// The ID of the conflict copy of the version of `origin` whose content hash is `hash`: the
    /// origin's first 8 bytes, then 8 bytes of a keyed hash (R-MRG-8).
    static func copyID(of origin: ItemID, hash: [UInt8], key: SecretBytes) -> ItemID {
        let tail = BLAKE2b.hash([Array("VLTcopy1".utf8), origin.bytes, hash], key: key, length: 8)
        return ItemID(high: origin.high, low: tail.reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The ID under which a merge keeps the time of a deletion that a newer version of `origin`
    /// outlived (R-MRG-9): the origin's first 8 bytes, then its last 8 bytes XOR "VLTshadw".
    public static func shadowID(of origin: ItemID) -> ItemID {
        ItemID(high: origin.high, low: origin.low ^ 0x564C_5473_6861_6477)
    }
}

// MARK: - The merge

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
    let positions: ItemIDTable
    let tombs: [ItemID: Int64]
    /// The side whose master key seals this input's records: ours' when both sides have one key,
    /// `nil` for an ancestor under a third key. Inputs under one key share their records as
    /// ciphertext.
    let sealedUnder: MergeSide?
    var cache: [Int: Plain?] = [:]

    init(_ snapshot: VaultSnapshot, sealedUnder: MergeSide?) throws {
        self.snapshot = try snapshot.withRecordsLoaded()
        positions = try snapshot.index.positionsByID()
        tombs = Dictionary(snapshot.index.deletions.map { ($0.itemID, $0.deletedAt) }, uniquingKeysWith: max)
        self.sealedUnder = sealedUnder
    }

    func state(_ id: ItemID) -> MergeState {
        if let position = positions.position(of: id) { return .live(position) }
        if let time = tombs[id] { return .tomb(time) }
        return .none
    }

    func entry(_ position: Int) -> IndexEntry { snapshot.index.entry(at: position) }
    func bytes(_ position: Int) throws -> ArraySlice<UInt8> { try snapshot.recordBytes(at: position) }
}

/// A decrypted version: the draft that would seal it again and its content hash.
struct Plain {
    let draft: ItemDraft
    let hash: [UInt8]
    let entry: IndexEntry
    var rank: MergeRank {
        MergeRank(time: draft.attributes.modificationDate, live: 1, version: entry.version, hash: hash)
    }
}

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
}

struct PendingCopy {
    let origin: ItemID
    let plain: Plain
}

struct Merger {
    let inputs: Sides<MergeInput>
    let base: MergeInput?
    /// The side whose master key the merged file keeps (R-MRG-11); the writer starts from its file.
    let keysFrom: MergeSide
    let hashKey: SecretBytes
    let options: MergeOptions
    var writer: VaultWriter
    let keyslotsFrom: MergeSide

    var conflicts: [MergeConflict] = []
    var copies: [PendingCopy] = []
    /// Versions to place from the side whose keys are not kept, after removals.
    var adoptions: [(id: ItemID, side: MergeSide, position: Int)] = []
    var dedupe: [(origin: ItemID, hash: [UInt8])] = []
    /// Live items that outlived a deletion, and its time (R-MRG-9).
    var shadows: [(origin: ItemID, deletedAt: Int64)] = []
    var added = 0
    var updated = 0
    var deleted = 0
    var recipientChanges = 0
    var otherChanges = 0
    var droppedUnreadable: [ItemID] = []
    /// Items whose merged state is theirs' (added, changed or deleted from ours), for R-MRG-11's report.
    var theirsChanges: [ItemID] = []

    init(ours: VaultSnapshot, theirs: VaultSnapshot, base: VaultSnapshot?, options: MergeOptions) throws {
        // R-MRG-1: one vault.
        for other in [theirs] + (base.map { [$0] } ?? []) where other.header.vaultID != ours.header.vaultID {
            throw VaultMergeError(.differentVaults, "the files hold different vaults (their vault IDs differ)")
        }
        // R-MRG-2: every version must be comparable and sealable.
        guard let oursMaster = ours.keys.master?.secret, let theirsMaster = theirs.keys.master?.secret,
            base.map({ $0.keys.hasMasterKey }) ?? true
        else {
            throw VaultMergeError(.masterKeyRequired, "a merge needs each file opened with a password or key file")
        }
        let sameKeys = oursMaster == theirsMaster
        inputs = Sides(
            ours: try MergeInput(ours, sealedUnder: .ours),
            theirs: try MergeInput(theirs, sealedUnder: sameKeys ? .ours : .theirs)
        )
        let baseInput = try base.map {
            let master = $0.keys.master!.secret
            return try MergeInput(
                $0,
                sealedUnder: master == oursMaster ? .ours : (master == theirsMaster ? .theirs : nil)
            )
        }
        self.base = baseInput
        self.options = options
        // R-MRG-11: a merge never changes master key on its own judgement, except to keep the key
        // that ours alone changed since the ancestor (the person merging rekeyed).
        if sameKeys {
            keysFrom = .ours
        } else if let choice = options.masterKey {
            keysFrom = choice
        } else if baseInput?.sealedUnder == .theirs {
            keysFrom = .ours
        } else {
            throw VaultMergeError(
                .masterKeysDiffer,
                baseInput?.sealedUnder == .ours
                    ? "the other file was rekeyed (its master key differs from the ancestor's and ours); "
                        + "choose the key to keep"
                    : "the two files have different master keys (one was rekeyed); choose the key to keep"
            )
        }
        let kept = inputs[keysFrom].snapshot
        hashKey = BLAKE2b.deriveKey(from: kept.keys.master!.secret, id: 1, context: "VLTmerge")
        writer = try VaultWriter(updating: kept)
        let generation = max(ours.header.generation, theirs.header.generation)
        guard generation < UInt64.max - 1 else { throw VaultFormatError(.limit, "the generation counter is exhausted") }
        writer.raiseGeneration(to: generation + 1)
        if theirs.header.followsVersion11Rules || ours.header.followsVersion11Rules { writer.upgradeToVersion11() }
        // R-MRG-12: keyslots.
        if sameKeys, let base, base.keys.master!.secret == oursMaster, base.header.keyslots == ours.header.keyslots,
            theirs.header.keyslots != ours.header.keyslots,
            !Self.lowersPasswordCost(from: ours.header.keyslots, to: theirs.header.keyslots)
        {
            try writer.setKeyslots(theirs.header.keyslots)
            keyslotsFrom = .theirs
        } else {
            keyslotsFrom = keysFrom
        }
        if sameKeys {
            // R-MRG-16: the access groups first, so that every limited stanza names a domain of
            // the merged header, and that domain holds the same group on both sides.
            try Self.mergeAccessGroups(ours: ours, theirs: theirs, into: &writer)
            recipientChanges = try Self.mergeRecipients(ours: ours, theirs: theirs, base: base, into: &writer)
        }
    }

    mutating func run() throws -> VaultMerge.Result {
        let ours = inputs.ours
        let theirs = inputs.theirs
        if let base {
            // R-MRG-17: what theirs changed since the ancestor must be newer than the ancestor.
            // Ours is the file merged into, kept where theirs changed nothing: it need not descend
            // (a cherry-pick onto an older branch, a rebase that drops a commit).
            try checkTheirsDescends(from: base)
        }
        for position in 0..<ours.snapshot.index.count {
            try resolve(ours.snapshot.index.itemID(at: position))
        }
        for position in 0..<theirs.snapshot.index.count {
            let id = theirs.snapshot.index.itemID(at: position)
            if ours.positions.position(of: id) == nil { try resolve(id) }
        }
        for input in inputs.both {
            for id in input.tombs.keys
            where ours.positions.position(of: id) == nil && theirs.positions.position(of: id) == nil {
                if input === theirs, ours.tombs[id] != nil { continue }  // done from ours
                try resolve(id)
            }
        }
        for adoption in adoptions { try adopt(adoption.id, from: adoption.side, position: adoption.position) }
        for pending in copies { try placeCopy(pending) }
        for (origin, hash) in dedupe {
            let id = VaultMerge.copyID(of: origin, hash: hash, key: hashKey)
            if writer.entry(for: id) != nil {
                writer.discard(id)
                otherChanges += 1
            }
        }
        for (origin, time) in shadows where writer.entry(for: origin) != nil {
            let shadow = VaultMerge.shadowID(of: origin)
            writer.recordDeletion(of: shadow, at: time)
            if ours.tombs[shadow] != time { otherChanges += 1 }
        }
        try removeOutdatedCopies()
        let report = MergeReport(
            generation: writer.header.generation,
            threeWay: base != nil,
            keysFrom: keysFrom,
            keyslotsFrom: keyslotsFrom,
            added: added,
            updated: updated,
            deleted: deleted,
            otherChanges: otherChanges,
            recipientChanges: recipientChanges,
            conflicts: conflicts.sorted { $0.itemID < $1.itemID },
            droppedUnreadable: droppedUnreadable.sorted(),
            changedUnderRetiredKey: keysFrom == .ours && theirs.sealedUnder != .ours ? theirsChanges.sorted() : []
        )
        return VaultMerge.Result(writer: writer, report: report)
    }

    // MARK: - Deciding one item

    /// R-MRG-3, R-MRG-4: one item, by ID.
    mutating func resolve(_ id: ItemID) throws {
        let states = Sides(ours: inputs.ours.state(id), theirs: inputs.theirs.state(id))
        let (a, b) = (states.ours, states.theirs)
        if case .live(let p) = a, case .live(let q) = b, try same(inputs.ours, p, inputs.theirs, q) {
            // The same version on both sides and no deletion recorded (the common case): whatever
            // the ancestor says, it stays (R-MRG-3, R-MRG-4), and nothing else needs deciding.
            if deletionTime(of: id) == nil {
                try settle(id, states[keysFrom], side: keysFrom, tomb: nil)
                return
            }
        }
        let tomb = deletionTime(of: id)
        let live: Bool
        if case .live(let p) = a, case .live(let q) = b, try same(inputs.ours, p, inputs.theirs, q) {
            live = try settle(id, states[keysFrom], side: keysFrom, tomb: tomb)
        } else if let base, try equal(a, inputs.ours, base.state(id), base) {
            // R-MRG-17: theirs lacking, with no deletion record, an item the ancestor has is no
            // proof that anyone deleted it: theirs contributes nothing for it.
            let unproven = b.tombTime == nil && b.position == nil && base.state(id).position != nil
            let side: MergeSide = unproven ? .ours : .theirs
            live = try settle(id, states[side], side: side, tomb: tomb)
        } else if let base, try equal(b, inputs.theirs, base.state(id), base) {
            live = try settle(id, a, side: .ours, tomb: tomb)
        } else if try equal(a, inputs.ours, b, inputs.theirs) {
            live = try settle(id, a.position == nil ? a : states[keysFrom], side: keysFrom, tomb: tomb)
        } else {
            live = try conflict(id, states, concurrent: base != nil, tomb: tomb)
        }
        if live, let tomb { shadows.append((id, tomb)) }
    }

    /// The latest deletion of `id` either side records, under its own ID or its shadow (R-MRG-9).
    func deletionTime(of id: ItemID) -> Int64? {
        var latest: Int64? = nil
        for input in inputs.both where !input.tombs.isEmpty {
            for time in [input.tombs[id], input.tombs[VaultMerge.shadowID(of: id)]] {
                if let time, time > (latest ?? .min) { latest = time }
            }
        }
        return latest
    }

    /// Whether two states hold the same version: both without a live item, or the same content.
    func equal(_ x: MergeState, _ i: MergeInput, _ y: MergeState, _ j: MergeInput) throws -> Bool {
        switch (x.position, y.position) {
        case (nil, nil): return true
        case (let p?, let q?): return try same(i, p, j, q)
        default: return false
        }
    }

    func same(_ i: MergeInput, _ p: Int, _ j: MergeInput, _ q: Int) throws -> Bool {
        if i.sealedUnder == j.sealedUnder, i.entry(p) == j.entry(q), try i.bytes(p) == j.bytes(q) { return true }
        guard let x = try plain(i, p), let y = try plain(j, q) else { return false }
        return x.hash == y.hash
    }

    /// Makes the merged item `id` be `state` of input `side` (R-MRG-4).
    ///
    /// - Returns: Whether the item is live.
    @discardableResult
    mutating func settle(_ id: ItemID, _ state: MergeState, side: MergeSide, tomb: Int64?) throws -> Bool {
        let oursLive = inputs.ours.positions.position(of: id) != nil
        guard let position = state.position else {
            if writer.entry(for: id) != nil || tomb != nil {
                if let tomb { writer.recordDeletion(of: id, at: tomb) } else { writer.discard(id) }
            }
            if !oursLive, let tomb, inputs.ours.tombs[id] != tomb { otherChanges += 1 }
            if oursLive {
                deleted += 1
                if side == .theirs { theirsChanges.append(id) }
            }
            return false
        }
        if side == keysFrom { return true }  // the writer holds it already
        if let held = inputs[keysFrom].positions.position(of: id),
            try same(inputs[keysFrom], held, inputs[side], position)
        {
            return true
        }
        adoptions.append((id, side, position))
        if side == .theirs {
            if oursLive { updated += 1 } else { added += 1 }
            theirsChanges.append(id)
        }
        return true
    }

    /// R-MRG-6, R-MRG-7: the two sides hold different versions and the ancestor does not say which changed.
    mutating func conflict(_ id: ItemID, _ states: Sides<MergeState>, concurrent: Bool, tomb: Int64?) throws -> Bool {
        switch (states.ours.position, states.theirs.position) {
        case (let p?, let q?):
            let x = try plain(inputs.ours, p)
            let y = try plain(inputs.theirs, q)
            guard let x, let y else {
                // R-MRG-13: a version that cannot be read cannot be dated: the later version number
                // wins, then the record bytes; the other is reported, not kept.
                let vx = inputs.ours.entry(p).version
                let vy = inputs.theirs.entry(q).version
                let later =
                    vy != vx
                    ? vy > vx : Array(try inputs.ours.bytes(p)).lexicographicallyPrecedes(try inputs.theirs.bytes(q))
                let winner: MergeSide = later ? .theirs : .ours
                conflicts.append(MergeConflict(itemID: id, kind: .unreadable, winner: winner, copyID: nil))
                return try settle(id, states[winner], side: winner, tomb: nil)
            }
            let versions = Sides(ours: x, theirs: y)
            let winner: MergeSide = x.rank < y.rank ? .theirs : .ours
            let (won, lost) = (versions[winner], versions[winner.other])
            if let tomb, won.rank < MergeRank(time: tomb, live: 0, version: 0, hash: []) {
                // R-MRG-9: a deletion newer than both versions (kept by a shadow record) wins.
                return try settle(id, .tomb(tomb), side: keysFrom, tomb: tomb)
            }
            let copyID = VaultMerge.copyID(of: id, hash: lost.hash, key: hashKey)
            copies.append(PendingCopy(origin: id, plain: lost))
            dedupe.append((id, won.hash))
            conflicts.append(
                MergeConflict(
                    itemID: id,
                    kind: .bothChanged,
                    winner: winner,
                    copyID: keepsCopy(of: lost, tomb: tomb) ? copyID : nil,
                    service: won.draft.attributes.service,
                    account: won.draft.attributes.account
                )
            )
            return try settle(id, states[winner], side: winner, tomb: nil)
        case (let p?, nil), (nil, let p?):
            let liveSide: MergeSide = states.ours.position != nil ? .ours : .theirs
            let live = states[liveSide]
            let other = states[liveSide.other]
            guard let deletedAt = tomb else {
                // The other side has no record of the item at all: it never had it, or its deletion
                // record expired (R-DEL-2). Nothing is lost by keeping the item.
                return try settle(id, live, side: liveSide, tomb: nil)
            }
            guard let version = try plain(inputs[liveSide], p) else {
                conflicts.append(MergeConflict(itemID: id, kind: .unreadable, winner: liveSide, copyID: nil))
                return try settle(id, live, side: liveSide, tomb: nil)
            }
            let deletion = MergeRank(time: deletedAt, live: 0, version: 0, hash: [])
            if deletion < version.rank {
                if concurrent {
                    conflicts.append(
                        MergeConflict(
                            itemID: id,
                            kind: .changedAndDeleted,
                            winner: liveSide,
                            copyID: nil,
                            service: version.draft.attributes.service,
                            account: version.draft.attributes.account
                        )
                    )
                }
                return try settle(id, live, side: liveSide, tomb: nil)
            } else {
                if concurrent {
                    // R-MRG-7: the deletion is newer than the concurrent edit, which is reported.
                    conflicts.append(
                        MergeConflict(
                            itemID: id,
                            kind: .changedAndDeleted,
                            winner: nil,
                            copyID: nil,
                            service: version.draft.attributes.service,
                            account: version.draft.attributes.account
                        )
                    )
                }
                return try settle(id, other, side: liveSide.other, tomb: deletedAt)
            }
        case (nil, nil):
            return try settle(id, states.ours, side: keysFrom, tomb: tomb)
        }
    }

    // MARK: - Placing versions

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
            result = Plain(draft: draft, hash: try contentHash(draft), entry: entry)
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

    /// Places the version at `position` of input `side` as item `id`, resolving a clash of
    /// primary keys with another item (R-MRG-10).
    mutating func adopt(_ id: ItemID, from side: MergeSide, position: Int) throws {
        let input = inputs[side]
        let entry = input.entry(position)
        guard let version = try plain(input, position) else {
            if input.sealedUnder == inputs[keysFrom].sealedUnder {
                writer.adopt(SealedRecord(entry: entry, bytes: Array(try input.bytes(position))))
                return
            }
            // R-MRG-13: sealed under the master key not kept, and unreadable here.
            guard options.unreadableRecords == .drop else {
                throw VaultMergeError(
                    .unreadableRecords,
                    "a ThisDeviceOnly item of another device is sealed under the other side's master key "
                        + "and cannot be carried into the merged file"
                )
            }
            droppedUnreadable.append(id)
            return
        }
        if let holder = try writer.itemID(for: version.draft.primaryKey), holder != id,
            let record = writer.record(for: holder)
        {
            let draft = try RecordCodec.openDraft(
                record.bytes[...],
                entry: record.entry,
                vaultID: writer.header.vaultID,
                keys: writer.keys
            )
            let held = Plain(draft: draft, hash: try contentHash(draft), entry: record.entry)
            let loser: (ItemID, Plain)
            if held.rank < version.rank {
                writer.discard(holder)
                loser = (holder, held)
            } else {
                writer.discard(id)
                loser = (id, version)
            }
            copies.append(PendingCopy(origin: loser.0, plain: loser.1))
            conflicts.append(
                MergeConflict(
                    itemID: loser.0,
                    kind: .samePrimaryKey,
                    winner: nil,
                    copyID: VaultMerge.copyID(of: loser.0, hash: loser.1.hash, key: hashKey),
                    service: version.draft.attributes.service,
                    account: version.draft.attributes.account
                )
            )
            if loser.0 == id { return }
        }
        if input.sealedUnder == inputs[keysFrom].sealedUnder,
            try writer.keyDomain(forAccessGroup: version.draft.attributes.accessGroup) == entry.domain
        {
            writer.adopt(SealedRecord(entry: entry, bytes: Array(try input.bytes(position))))
        } else {
            // Another master key, or a key domain the merged header puts the item's group in
            // (R-MRG-16, R2-GRP-3): sealed again.
            try writer.put(version.draft)
        }
    }

    /// Whether a losing version is kept as a conflict copy: it must be newer than every deletion
    /// of its item (R-MRG-9) and not bound to a device (R-MRG-8).
    func keepsCopy(of version: Plain, tomb: Int64?) -> Bool {
        !version.draft.protectionClass.isDeviceBound && version.draft.attributes.modificationDate > (tomb ?? .min)
    }

    /// R-MRG-9: removes the conflict copies that a deletion of their origin outdates (copies of
    /// versions no newer than the deletion). Copies share their origin's first 8 bytes, so only
    /// items whose first 8 bytes another item or deletion record shares are read.
    mutating func removeOutdatedCopies() throws {
        var highs: [UInt64: Int] = [:]
        let live = writer.entries
        for entry in live { highs[entry.itemID.high, default: 0] += 1 }
        for input in inputs.both { for id in input.tombs.keys { highs[id.high, default: 0] += 1 } }
        for entry in live where highs[entry.itemID.high, default: 0] > 1 && !entry.protectionClass.isDeviceBound {
            guard let record = writer.record(for: entry.itemID) else { continue }
            let attributes = try RecordCodec.openAttributes(
                record.bytes[...],
                entry: entry,
                vaultID: writer.header.vaultID,
                keys: writer.keys
            )
            guard let marker = attributes.preserved.first(where: { $0.tag == VaultMerge.conflictMarkerTag }),
                marker.value.count >= 16
            else { continue }
            let origin = ItemID(bytes: marker.value.prefix(16))
            guard let deleted = deletionTime(of: origin) else { continue }
            if attributes.modificationDate <= deleted {
                writer.discard(entry.itemID)
                otherChanges += 1
            }
        }
    }

    /// R-MRG-8: seals the losing version as a new item with a derived ID, a marked account and
    /// the marker attribute; skipped when that copy was deleted after the version was made.
    mutating func placeCopy(_ pending: PendingCopy) throws {
        let id = VaultMerge.copyID(of: pending.origin, hash: pending.plain.hash, key: hashKey)
        guard keepsCopy(of: pending.plain, tomb: deletionTime(of: pending.origin)) else { return }
        if writer.entry(for: id) != nil { return }
        let time = pending.plain.draft.attributes.modificationDate
        if let deleted = inputs.both.compactMap({ $0.tombs[id] }).max(), deleted >= time { return }
        var draft = pending.plain.draft
        draft.id = id
        let suffix = " (conflict \(id.description.suffix(8)))"
        var account = draft.attributes.account
        let room = AttributesCodec.maximumStringByteCount - suffix.utf8.count
        if account.utf8.count > room { account = String(decoding: account.utf8.prefix(room), as: UTF8.self) }
        draft.attributes.account = account + suffix
        var marker = ByteWriter(capacity: 24)
        marker.append(pending.origin.bytes)
        marker.u64(pending.plain.entry.version)
        var preserved = draft.attributes.preserved.filter { $0.tag != VaultMerge.conflictMarkerTag }
        preserved.append(PreservedAttribute(tag: VaultMerge.conflictMarkerTag, value: marker.bytes))
        draft.attributes.preserved = preserved.sorted { $0.tag < $1.tag }
        // A synchronizable item stays synchronizable; its copy is a separate item of the same class.
        try writer.put(draft)
    }
}
