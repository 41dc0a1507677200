// vault: the next generation of a format-3 vault: histories, deletion entries, and the choice
// between an in-place commit and a full rewrite.

import Synchronization

/// The format-3 commit a writer builds on: lookups by tag read one node per level; a lookup by
/// item ID alone reads every tree once (the store keeps what it read).
final class Format3Base: Sendable {
    let store: Format3Store
    /// Entries found by tag so far, by item ID.
    private let known = Mutex<[ItemID: Format3Located]>([:])
    private let table = Mutex<ItemIDTable?>(nil)

    init(_ store: Format3Store) { self.store = store }

    /// The live entries with lookup tag `tag`, remembered for later lookups by ID.
    func candidates(tag: UInt64) throws -> [Format3Located] {
        let found = try store.located(tag: tag)
        known.withLock { known in
            for located in found { known[located.entry.itemID] = located }
        }
        return found
    }

    /// The live entry of item `id`, or `nil`.
    func located(_ id: ItemID) throws -> Format3Located? {
        if let hit = known.withLock({ $0[id] }) { return hit }
        let contents = try store.contents()
        let table: ItemIDTable
        if let built = self.table.withLock({ $0 }) {
            table = built
        } else {
            table = try ItemIDTable(contents.index)
            self.table.withLock { $0 = table }
        }
        guard let position = table.position(of: id) else { return nil }
        return Format3Located(
            entry: contents.index.entry(at: position),
            recordOffset: contents.index.offsets[position],
            history: contents.histories[position]
        )
    }

    /// The deletion entry of item `id`, or `nil` (every tree is read once).
    func deletion(_ id: ItemID) throws -> Format3Deletion? { try store.contents().deletions[id] }

    /// The record bytes of a located entry.
    func recordBytes(_ located: Format3Located) throws -> [UInt8] {
        Array(try store.source.read(offset: located.recordOffset, count: located.entry.recordLength))
    }
}

extension EventHistory {
    /// The history of an entry whose record was sealed before format 3, or by a tool that names no
    /// history: the one event `LE64(version)`, the bytes the record's associated data already
    /// names (Spec/format-v3.md §11).
    package init(version: UInt64) {
        self.init(first: EventID(migratedVersion: max(version, 1)))
    }

    /// The one event of a deletion record migrated from an earlier format: derived from the item
    /// ID and the deletion time, so that every copy migrated on its own gets the same event
    /// (Spec/format-v3.md §11).
    package init(migratedDeletionOf id: ItemID, at deletedAt: Int64) {
        var message = Array("VLT3mdel".utf8) + id.bytes
        withUnsafeBytes(of: deletedAt.littleEndian) { message.append(contentsOf: $0) }
        var bytes = BLAKE2b.hash(message, length: EventHistory.eventByteCount)
        if bytes.allSatisfy({ $0 == 0 }) { bytes[0] = 1 }
        self.init(first: EventID(bytes: bytes)!)
    }
}

// MARK: - The base and the histories

extension VaultWriter {
    /// The format-3 base's live entry of `id`; `nil` for an ID the caller drew for a new item.
    func baseLocated(_ id: ItemID) throws -> Format3Located? {
        guard let format3, !freshIDs.contains(id) else { return nil }
        return try format3.located(id)
    }

    /// Whether the previous generation holds a live entry of `id`.
    func baseHolds(_ id: ItemID) throws -> Bool {
        if let base { return base.positions.position(of: id) != nil }
        return try baseLocated(id) != nil
    }

    /// The history the previous generation gives item `id`: its format-3 entry's, live or deleted
    /// (an item written again after its deletion descends from the deletion, R3-EV-1), or, for a
    /// file being migrated, the one event of its version or deletion record (Spec/format-v3.md
    /// §11); `nil` for a new item.
    func baseHistory(of id: ItemID) throws -> EventHistory? {
        if let base {
            if let position = base.positions.position(of: id) {
                return EventHistory(version: base.index.entry(at: position).version)
            }
            return base.deletedAt(id).map { EventHistory(migratedDeletionOf: id, at: $0) }
        }
        if let live = try baseLocated(id) { return live.history }
        guard let format3, !freshIDs.contains(id) else { return nil }
        return try format3.deletion(id)?.history
    }

    /// The history item `id` has in the generation being built: the one this generation gave it,
    /// else the previous generation's (``baseHistory(of:)``).
    func currentHistory(of id: ItemID) throws -> EventHistory? {
        if let history = histories[id] ?? deletedEntries[id]?.history { return history }
        return try baseHistory(of: id)
    }

    /// The history of item `id` after one more write in this generation: a fresh event on top of
    /// the previous generation's history (R3-EV-1). Writes repeated in one generation are one
    /// event.
    func nextHistory(of id: ItemID, random: some RandomSource) throws -> EventHistory {
        let previous = try baseHistory(of: id)
        let event = EventID.random(avoiding: previous, from: random)
        return previous?.recording(event) ?? EventHistory(first: event)
    }

    /// R-DEL-3 in format 3: an item written again over its deletion entry keeps that deletion
    /// under its shadow ID (Spec/merge.md R-MRG-9), as a merge would, so that a later merge still
    /// outdates a version older than the deletion that never saw it, whichever replica it meets
    /// first. Needs the master key (shadows stand in the master scope); without it, nothing.
    mutating func keepDeletionAsShadow(writtenOver id: ItemID) throws {
        guard keepsDeletionShadows, keys.hasMasterKey, let format3, !freshIDs.contains(id), try baseLocated(id) == nil,
            let deletion = try format3.deletion(id)
        else { return }
        try recordDeletion(of: VaultMerge.shadowID(of: id), at: deletion.deletedAt, history: deletion.history)
    }

    /// Records the deletion entry of the item whose entry was `entry` (R3-ENT-2).
    mutating func recordDeletionEntry(of entry: IndexEntry, at deletedAt: Int64, history: EventHistory) throws {
        deletedEntries[entry.itemID] = try deletionEntry(of: entry, at: deletedAt, history: history)
    }

    /// The deletion entry of the item whose entry was `entry`: in the scope and under the key of
    /// the previous generation's entry when there is one, so that it takes that entry's place
    /// (R3-ENT-2).
    func deletionEntry(of entry: IndexEntry, at deletedAt: Int64, history: EventHistory) throws -> Format3Deletion {
        let place = try baseLocated(entry.itemID)?.entry ?? entry
        return Format3Deletion(
            key: TreeKey(tag: place.tag, itemID: entry.itemID),
            scope: ScopeID(protectionClass: place.protectionClass, domain: place.domain),
            deletedAt: deletedAt,
            history: history
        )
    }

    /// Raises a format 1.1, 1.2 or 2.0 file to format 3 (Spec/format-v3.md §11): the next
    /// generation is written whole, each record byte for byte, each entry's history the one event
    /// of its version. A 1.0 file is raised to 1.1 first (R11-MIG-1).
    ///
    /// - Returns: Whether the version changed.
    /// - Throws: `keyUnavailable` without the master key (the master scope's tag needs it);
    ///   `unsupportedVersion` for a 1.0 file.
    @discardableResult
    package mutating func upgradeToVersion3() throws -> Bool {
        if header.isVersion3 { return false }
        guard header.followsVersion11Rules else {
            throw VaultFormatError(.unsupportedVersion, "a format 1.0 vault is migrated to 1.1 first")
        }
        guard keys.hasMasterKey else {
            throw VaultFormatError(.keyUnavailable, "migrating to format 3 needs the master key")
        }
        try upgradeToVersion12()
        header.major = VaultHeader.version3Major
        header.minor = CommitSlot.minor
        rewritesWhole = true
        return true
    }
}

// MARK: - Encoding

/// How the next generation of a vault reaches its file.
package enum EncodedGeneration: Sendable {
    /// A whole new file, written with the copy-on-write writer (formats 1 and 2; a format-3 full
    /// rewrite, Spec/format-v3.md §9.2).
    case whole([UInt8])
    /// A format-3 in-place commit: bytes appended and the other slot written (§9.1).
    case inPlace(Format3Commit)

    /// The head (``VaultHead``) of the generation written, and the file's length after it.
    package func head() throws(VaultFormatError) -> (bytes: [UInt8], fileLength: Int) {
        switch self {
        case .whole(let file): (try VaultHead.read(file).bytes, file.count)
        case .inPlace(let commit): (commit.head, commit.fileLength)
        }
    }
}

extension VaultWriter {
    /// The most a format-3 commit appends before the writer rewrites the file instead (R3-WR-2).
    static let largestInPlaceCommit = 1 << 20

    /// The next generation as its file needs it: in format 3 an in-place commit of what changed,
    /// unless the writer must or should rewrite the whole file (a rekey or a migration; a commit
    /// over 1 MiB, R3-WR-2; waste past both the live bytes and 1 MiB, R3-WR-3). A writer without
    /// the master key never rewrites the whole file (it could not tag the scopes it lacks).
    ///
    /// - Throws: As ``encode(now:random:)``; `keyUnavailable` for a change in a scope whose key
    ///   is not held (R3-SCP-3).
    package func encodeGeneration(now: Int64, random: some RandomSource = SystemRandom()) throws
        -> EncodedGeneration
    {
        guard header.isVersion3, let format3, !rewritesWhole else {
            return .whole(try encode(now: now, random: random))
        }
        let commit = try Format3Writer.commit(
            try format3Changes(),
            on: format3.store,
            header: headerToWrite,
            keys: keys,
            now: UInt64(max(now, 1)),
            random: random
        )
        let limit = UInt64(Self.largestInPlaceCommit)
        if keys.hasMasterKey,
            commit.appended.count > Self.largestInPlaceCommit || commit.waste > max(commit.liveBytes, limit)
        {
            return .whole(try encode(now: now, random: random))
        }
        return .inPlace(commit)
    }

    /// The header as written: without TPM2 bindings whose keyslot is gone (R-TPM-5).
    var headerToWrite: VaultHeader {
        var header = self.header
        header.unknownFields = header.unknownFieldsWithoutOrphanedBindings
        return header
    }

    /// A format-3 file written whole (§9.2): every live record byte for byte, the deletion entries
    /// of the last 90 days (R-DEL-2), each scope's counter raised (§7.2).
    func encodeWhole(now: Int64, random: some RandomSource) throws -> [UInt8] {
        var records: [Format3Record] = []
        records.reserveCapacity(count)
        for id in changed.keys.sorted() {
            let record = changed[id]!
            records.append(Format3Record(record, history: histories[id] ?? EventHistory(version: record.entry.version)))
        }
        if let base {
            for position in 0..<base.index.count where !dropped.contains(base.index.itemID(at: position)) {
                let sealed = base.record(at: position)
                records.append(Format3Record(sealed, history: EventHistory(version: sealed.entry.version)))
            }
        }
        var deletions: [ItemID: Format3Deletion] = [:]
        if let format3 {
            let contents = try format3.store.contents()
            for position in 0..<contents.index.count where !dropped.contains(contents.index.itemID(at: position)) {
                let located = Format3Located(
                    entry: contents.index.entry(at: position),
                    recordOffset: contents.index.offsets[position],
                    history: contents.histories[position]
                )
                records.append(
                    Format3Record(
                        SealedRecord(entry: located.entry, bytes: try format3.recordBytes(located)),
                        history: located.history
                    )
                )
            }
            deletions = contents.deletions
        }
        // A migrated deletion record names no tag or class (§11).
        for (id, deletedAt) in self.deletions where deletedEntries[id] == nil && deletions[id] == nil {
            deletions[id] = Format3Deletion(migrating: deletedAt, of: id)
        }
        for (id, deletion) in deletedEntries { deletions[id] = deletion }
        for id in changed.keys { deletions[id] = nil }
        let kept = Set(
            keptDeletions(from: deletions.mapValues(\.deletedAt), now: now).map(\.itemID)
        )
        let counters =
            format3.map { base in
                Dictionary(uniqueKeysWithValues: base.store.root.scopes.map { ($0.scope, $0.counter) })
            } ?? [:]
        return try Format3Writer.rewrite(
            header: headerToWrite,
            keys: keys,
            records: records,
            deletions: deletions.values.filter { kept.contains($0.key.itemID) }.sorted { $0.key < $1.key },
            counters: { max((counters[$0] ?? 0) + 1, UInt64(max(now, 1))) },
            random: random
        )
    }

    /// What an in-place commit changes (Spec/format-v3.md §9.1): each record sealed in this
    /// generation; each removed item's deletion entry, in its old entry's place; and the old
    /// entries that a record moved to another scope or key leaves behind.
    func format3Changes() throws -> Format3Changes {
        var changes = Format3Changes()
        for id in changed.keys.sorted() {
            let record = Format3Record(changed[id]!, history: histories[id]!)
            changes.records.append(record)
            if let old = try previousPlace(of: id), old.key != record.entry.key || old.scope != record.scope {
                changes.remove(old.key, in: old.scope)
            }
        }
        for id in dropped.sorted() where changed[id] == nil {
            let old = try previousPlace(of: id)
            if let deletion = deletedEntries[id] {
                changes.place(deletion)
                if let old, old.key != deletion.key || old.scope != deletion.scope {
                    changes.remove(old.key, in: old.scope)
                }
            } else if let old {
                changes.remove(old.key, in: old.scope)
            }
        }
        for (id, deletion) in deletedEntries.sorted(by: { $0.key < $1.key })
        where changed[id] == nil && !dropped.contains(id) {
            if let old = try previousPlace(of: id), old.key != deletion.key || old.scope != deletion.scope {
                changes.remove(old.key, in: old.scope)
            }
            changes.place(deletion)
        }
        return changes
    }

    /// Where the previous generation holds an entry of `id`, live or deleted.
    private func previousPlace(of id: ItemID) throws -> (key: TreeKey, scope: ScopeID)? {
        if let live = try baseLocated(id) {
            let entry = live.entry
            return (
                TreeKey(tag: entry.tag, itemID: id),
                ScopeID(protectionClass: entry.protectionClass, domain: entry.domain)
            )
        }
        guard let format3, !freshIDs.contains(id), let deletion = try format3.deletion(id) else { return nil }
        return (deletion.key, deletion.scope)
    }
}

extension Format3Changes {
    /// Takes the entry with `key` out of `scope`'s tree.
    mutating func remove(_ key: TreeKey, in scope: ScopeID) {
        entries[scope, default: [:]].updateValue(nil, forKey: key)
    }

    /// Puts a deletion entry in its scope's tree.
    mutating func place(_ deletion: Format3Deletion) {
        entries[deletion.scope, default: [:]][deletion.key] = .some(
            .deleted(key: deletion.key, deletedAt: deletion.deletedAt, history: deletion.history)
        )
    }
}

extension Format3Deletion {
    /// The deletion entry a migration makes of a deletion record of an earlier format, which names
    /// no tag or class: tag 0, in the master scope, with a derived event (Spec/format-v3.md §11).
    package init(migrating deletedAt: Int64, of id: ItemID) {
        self.init(
            key: TreeKey(tag: 0, itemID: id),
            scope: .master,
            deletedAt: deletedAt,
            history: EventHistory(migratedDeletionOf: id, at: deletedAt)
        )
    }
}
