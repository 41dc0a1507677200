// vault: the one place a merge writes its decisions into the merged file and counts them for the report.

/// Work that waits until every item is decided.
struct MergePending {
    /// Versions to place from the side whose file the writer did not start from, after removals.
    var adoptions: [(id: ItemID, side: MergeSide, position: Int, merged: EventHistory?)] = []
    /// Losing versions to seal as conflict copies (R-MRG-8).
    var copies: [PendingCopy] = []
    /// Winning versions of conflicts: a conflict copy with their content is removed (R-MRG-8).
    var winners: [(origin: ItemID, hash: [UInt8])] = []
    /// Live items that outlived a deletion, and the latest such deletion (R-MRG-9): its time, and
    /// in format 3 its history.
    var shadows: [(origin: ItemID, deletion: Format3Deletion)] = []
    /// The side each conflict copy placed by this merge was read from (R-MRG-20).
    var copySides: [ItemID: MergeSide] = [:]
}

/// What ``MergeReport`` counts and lists, kept as decisions are applied.
struct MergeTally {
    var added = 0
    var updated = 0
    var deleted = 0
    var otherChanges = 0
    var recipientChanges = 0
    var conflicts: [MergeConflict] = []
    var droppedUnreadable: [ItemID] = []
    /// Items whose merged state is theirs' (added, changed or deleted from ours), for R-MRG-11's
    /// report.
    var theirsChanges: [ItemID] = []
}

extension Merger {
    /// Makes the merged item be what `decision` says (R-MRG-4), lists its conflict, and counts
    /// the change to ours.
    mutating func apply(_ decision: ItemDecision) throws {
        listConflict(of: decision)
        switch decision.outcome {
        case .remove(let side) where historyMode: try removeByHistory(decision, as: side)
        case .remove(let side): try remove(decision.id, as: side, deletedAt: decision.deletedAt)
        case .keep(let side, let position):
            try keep(decision.id, from: side, position: position, deletedAt: decision.deletedAt, decision.mergedHistory)
        }
    }

    /// R-MRG-18: the item ends as `side` holds it without a version: its deletion entry, under the
    /// merged history when the other side's state added events. Two concurrent versions that a
    /// newer deletion outdates (R-MRG-9) end in a deletion entry at that deletion's time, in the
    /// place of ours' entry; an item no side dated a deletion of is removed without one.
    private mutating func removeByHistory(_ decision: ItemDecision, as side: MergeSide) throws {
        let id = decision.id
        let merged = decision.mergedHistory
        let oursLive = inputs.ours.positions.position(of: id) != nil
        var deletion = inputs[side].deletionEntries[id]
        if deletion == nil, let outdating = decision.outdatedBy, let entry = try writer.entry(for: id) {
            deletion = Format3Deletion(
                key: TreeKey(tag: entry.tag, itemID: id),
                scope: ScopeID(protectionClass: entry.protectionClass, domain: entry.domain),
                deletedAt: outdating.deletion.deletedAt,
                history: outdating.deletion.history
            )
        }
        if var deletion {
            if side != keysFrom || merged != nil || oursLive {
                deletion.history = merged ?? deletion.history
                try writer.recordDeletion(deletion)
                if !oursLive, inputs.ours.deletionEntries[id] != deletion { tally.otherChanges += 1 }
            }
        } else if try writer.entry(for: id) != nil {
            try writer.discard(id)
        }
        if oursLive {
            tally.deleted += 1
            if side == .theirs { tally.theirsChanges.append(id) }
        }
    }

    /// Lists the conflict a decision resolved (R-MRG-7, R-MRG-13) and queues the conflict copy
    /// of a losing version (R-MRG-8).
    private mutating func listConflict(of decision: ItemDecision) {
        let id = decision.id
        let winner = decision.outcome.side
        switch decision.reason {
        case .newerVersion(let won, let lost, let copyKept):
            pending.copies.append(PendingCopy(origin: id, plain: lost))
            pending.winners.append((id, won.hash))
            tally.conflicts.append(
                MergeConflict(
                    itemID: id,
                    kind: .bothChanged,
                    winner: winner,
                    copyID: copyKept ? VaultMerge.copyID(of: id, hash: lost.hash, key: hashKey) : nil,
                    service: won.draft.attributes.service,
                    account: won.draft.attributes.account
                )
            )
        case .newerThanDeletion(let version, listed: true):
            tally.conflicts.append(changedAndDeletedConflict(id, winner: winner, version))
        case .deletionNewer(than: let version, listed: true):
            tally.conflicts.append(changedAndDeletedConflict(id, winner: nil, version))
        case .unreadable:
            tally.conflicts.append(
                MergeConflict(itemID: id, kind: .unreadable, winner: winner, copyID: nil, service: "", account: "")
            )
        case .sameVersion, .noVersion, .changedOnOneSide, .deletionUnproven, .unrecorded, .newerThanDeletion,
            .deletionNewer, .outdated, .descends:
            break
        }
    }

    /// The item ends without a version, as `side` has it: removed, with a deletion record at
    /// `deletedAt` when either side dated one.
    private mutating func remove(_ id: ItemID, as side: MergeSide, deletedAt tomb: Int64?) throws {
        let oursLive = inputs.ours.positions.position(of: id) != nil
        if try writer.entry(for: id) != nil || tomb != nil {
            if let tomb { try writer.recordDeletion(of: id, at: tomb) } else { try writer.discard(id) }
        }
        if !oursLive, let tomb, inputs.ours.tombs[id] != tomb { tally.otherChanges += 1 }
        if oursLive {
            tally.deleted += 1
            if side == .theirs { tally.theirsChanges.append(id) }
        }
    }

    /// The item keeps the version at `position` of `side`: the writer holds it when it is the
    /// kept key's side's (or the same content), and adopts it later otherwise. A deletion it
    /// outlived is kept under its shadow ID (R-MRG-9).
    private mutating func keep(
        _ id: ItemID,
        from side: MergeSide,
        position: Int,
        deletedAt tomb: Int64?,
        _ merged: EventHistory? = nil
    ) throws {
        if let tomb { pending.shadows.append((id, latestDeletion(of: id) ?? Format3Deletion(migrating: tomb, of: id))) }
        if side == keysFrom && merged == nil { return }  // the writer holds it already
        if merged == nil, let held = inputs[keysFrom].positions.position(of: id),
            try same(inputs[keysFrom], held, inputs[side], position),
            !historyMode || inputs[keysFrom].histories[held] == inputs[side].histories[position]
        {
            return
        }
        pending.adoptions.append((id, side, position, merged))
        // Ours' version with theirs' events taken in (R3-EV-3): the same record, a new history.
        if side == .ours, merged != nil { tally.otherChanges += 1 }
        if side == keysFrom { return }
        if side == .theirs {
            if inputs.ours.positions.position(of: id) != nil { tally.updated += 1 } else { tally.added += 1 }
            tally.theirsChanges.append(id)
        }
    }

    /// R-MRG-7: a three-way merge's `changedAndDeleted` conflict, listing `version`'s service and
    /// account.
    private func changedAndDeletedConflict(_ id: ItemID, winner: MergeSide?, _ version: Plain) -> MergeConflict {
        MergeConflict(
            itemID: id,
            kind: .changedAndDeleted,
            winner: winner,
            copyID: nil,
            service: version.draft.attributes.service,
            account: version.draft.attributes.account
        )
    }

    /// Places a version as ``placement(of:from:position:)`` decided (R-MRG-10, R-MRG-13): the
    /// item that lost its primary key gives up its ID and is kept as a conflict copy, listed as
    /// `samePrimaryKey`.
    ///
    /// Format 3: the version takes `history`, its own or the one the merge gave it (R3-EV-3); its
    /// current event, which the record's associated data names, is the same in both.
    mutating func place(_ id: ItemID, _ placement: Placement, history: EventHistory? = nil) throws {
        if let clash = placement.clash {
            try writer.discard(clash.loser)
            pending.copies.append(PendingCopy(origin: clash.loser, plain: clash.version))
            tally.conflicts.append(
                MergeConflict(
                    itemID: clash.loser,
                    kind: .samePrimaryKey,
                    winner: nil,
                    copyID: VaultMerge.copyID(of: clash.loser, hash: clash.version.hash, key: hashKey),
                    service: clash.incoming.draft.attributes.service,
                    account: clash.incoming.draft.attributes.account
                )
            )
        }
        switch placement.write {
        case .carry(let record)?: try writer.adopt(record, history: history)
        case .seal(let draft)? where historyMode: try writer.put(draft, history: history!)
        case .seal(let draft)?: try writer.put(draft)
        case .drop?: tally.droppedUnreadable.append(id)
        case nil: break
        }
    }

    /// R-MRG-8: seals the losing version as a new item with a derived ID, a marked account and
    /// the marker attribute; skipped when that copy was deleted after the version was made.
    mutating func placeCopy(_ copy: PendingCopy) throws {
        let id = VaultMerge.copyID(of: copy.origin, hash: copy.plain.hash, key: hashKey)
        guard
            keepsCopy(
                of: copy.plain,
                tomb: deletionTime(of: copy.origin, unseenBy: copy.plain.history, keptBy: copy.plain.side)
            )
        else { return }
        if try writer.entry(for: id) != nil { return }
        let time = copy.plain.draft.attributes.modificationDate
        if let deleted = inputs.both.compactMap({ $0.tombs[id] }).max(), deleted >= time { return }
        // Format 3: a deletion of this very copy (its history holds the copy's event) is never
        // undone, whatever the deleting machine's clock said.
        let event = Self.copyEvent(of: id, losing: copy.plain.entry.version)
        if historyMode, inputs.both.contains(where: { $0.deletionEntries[id]?.history.events.contains(event) == true })
        {
            return
        }
        var draft = copy.plain.draft
        draft.id = id
        let suffix = " (conflict \(id.description.suffix(8)))"
        var account = draft.attributes.account
        let room = AttributesCodec.maximumStringByteCount - suffix.utf8.count
        if account.utf8.count > room { account = String(decoding: account.utf8.prefix(room), as: UTF8.self) }
        draft.attributes.account = account + suffix
        var marker = ByteWriter(capacity: 24)
        marker.append(copy.origin.bytes)
        marker.u64(copy.plain.entry.version)
        var preserved = draft.attributes.preserved.filter { $0.tag != VaultMerge.conflictMarkerTag }
        preserved.append(PreservedAttribute(tag: VaultMerge.conflictMarkerTag, value: marker.bytes))
        draft.attributes.preserved = preserved.sorted { $0.tag < $1.tag }
        // A synchronizable item stays synchronizable; its copy is a separate item of the same class.
        if historyMode {
            pending.copySides[id] = copy.plain.side
            var history = Self.copyHistory(of: id, losing: copy.plain)
            // R-MRG-20: the version met its side's shadow deletion; its copy carries that into
            // later merges, where no side's shadow stands beside the copy.
            if let side = copy.plain.side, let shadow = masterShadow(of: copy.origin, on: side) {
                history = history.keepingAsOldest(shadow.history.current)
            }
            try writer.put(draft, history: history)
        } else {
            try writer.put(draft)
        }
    }

    /// R-MRG-8: removes the conflict copies whose content a conflict's winning version holds.
    mutating func removeCopiesOfWinners() throws {
        for (origin, hash) in pending.winners {
            let id = VaultMerge.copyID(of: origin, hash: hash, key: hashKey)
            if try writer.entry(for: id) != nil {
                try writer.discard(id)
                tally.otherChanges += 1
            }
        }
    }

    /// R-MRG-9: a deletion record under the shadow ID of each live item that outlived a deletion,
    /// at that deletion's time; in format 3 with that deletion's history, so that a version
    /// written after it is never outdated by it (R-MRG-18).
    mutating func recordShadows() throws {
        for (origin, deletion) in pending.shadows where try writer.entry(for: origin) != nil {
            let shadow = VaultMerge.shadowID(of: origin)
            try writer.recordDeletion(of: shadow, at: deletion.deletedAt, history: deletion.history)
            if inputs.ours.tombs[shadow] != deletion.deletedAt { tally.otherChanges += 1 }
        }
    }

    /// R-MRG-9: removes the conflict copies that a deletion of their origin outdates (copies of
    /// versions no newer than the deletion). Copies share their origin's first 8 bytes, so only
    /// items whose first 8 bytes another item or deletion record shares are read.
    mutating func removeOutdatedCopies() throws {
        var highs: [UInt64: Int] = [:]
        let live = try writer.entries
        for entry in live { highs[entry.itemID.high, default: 0] += 1 }
        for input in inputs.both { for id in input.tombs.keys { highs[id.high, default: 0] += 1 } }
        for entry in live where highs[entry.itemID.high, default: 0] > 1 && !entry.protectionClass.isDeviceBound {
            guard let record = try writer.record(for: entry.itemID) else { continue }
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
            let seen = historyMode ? try writer.currentHistory(of: entry.itemID) : nil
            // R-MRG-20: a copy this merge made of a side's live version is that version, which its
            // side's shadow says has met the deletion; a copy carried from an input is dated as
            // its history says.
            let keeper = pending.copySides[entry.itemID]
            guard let deleted = deletionTime(of: origin, unseenBy: seen, keptBy: keeper) else { continue }
            if attributes.modificationDate <= deleted {
                try writer.discard(entry.itemID)
                tally.otherChanges += 1
            }
        }
    }
}
