// vault: what a merge decides for each item and each version it places, before anything is written or counted.

/// What the merge decided for one item: the state it takes, from which side, and why.
///
/// Deciding reads the inputs only; ``Merger/apply(_:)`` writes the decision into the merged
/// file and counts it for the report.
struct ItemDecision {
    /// The state the item takes.
    enum Outcome {
        /// The version that `side` holds at `position`.
        case keep(MergeSide, position: Int)
        /// No version, as `side` has it: absent, or deleted.
        case remove(MergeSide)

        /// The side whose state the item takes.
        var side: MergeSide {
            switch self {
            case .keep(let side, _), .remove(let side): side
            }
        }
    }

    /// Why the item takes that state.
    enum Reason {
        /// R-MRG-3: both sides hold the same version.
        case sameVersion
        /// R-MRG-3, R-MRG-7: neither side holds a version; the later deletion is recorded.
        case noVersion
        /// R-MRG-4: the other side's state equals the ancestor's, so this side changed the item.
        case changedOnOneSide
        /// R-MRG-17: ours' state equals the ancestor's, and theirs lacks the item without a
        /// deletion record, which proves no deletion.
        case deletionUnproven
        /// R-MRG-6: the other side has no record of the item at all.
        case unrecorded
        /// R-MRG-7: the version of higher rank of two; `lost` is kept as a conflict copy
        /// (R-MRG-8), and the report names the copy when `copyKept`.
        case newerVersion(won: Plain, lost: Plain, copyKept: Bool)
        /// R-MRG-7: a version of higher rank than the other side's deletion; `listed` as a
        /// conflict in a three-way merge.
        case newerThanDeletion(Plain, listed: Bool)
        /// R-MRG-7: a deletion of higher rank than the other side's version, which is reported
        /// (when `listed`, in a three-way merge), not kept.
        case deletionNewer(than: Plain, listed: Bool)
        /// R-MRG-9: a deletion newer than both versions.
        case outdated
        /// R-MRG-13: a version that cannot be read here; the other state is reported, not kept.
        case unreadable
        /// R-MRG-18 (format 3): this side's state descends from the other's (its history holds the
        /// other's current event): taken silently, whatever the clocks say.
        case descends
    }

    let id: ItemID
    let outcome: Outcome
    let reason: Reason
    /// `T(X)` of R-MRG-9: the latest deletion either side records for the item or its shadow.
    /// Recorded under the item's ID when it ends without a version, under its shadow's when it
    /// ends live.
    let deletedAt: Int64?
    /// R-MRG-18 (format 3): the history the merged state takes when it is not the kept side's: that
    /// side's with the other side's events taken in (R3-EV-3).
    var mergedHistory: EventHistory? = nil
    /// R-MRG-9 (format 3): the deletion that outdates two versions, and the side of the newer one,
    /// when the item ends deleted for that reason: the deletion entry takes its time and history.
    var outdatedBy: (deletion: Format3Deletion, newer: MergeSide)? = nil
}

/// One item as the two sides hold it, while the merge decides it.
struct ItemStates {
    let id: ItemID
    let states: Sides<MergeState>
    /// `T(X)` of R-MRG-9 (``ItemDecision/deletedAt``).
    let deletedAt: Int64?

    /// The decision that the item takes `side`'s state, for `reason`.
    func taking(_ side: MergeSide, _ reason: ItemDecision.Reason) -> ItemDecision {
        let outcome: ItemDecision.Outcome =
            if let position = states[side].position { .keep(side, position: position) } else { .remove(side) }
        return ItemDecision(id: id, outcome: outcome, reason: reason, deletedAt: deletedAt)
    }

    /// The decision that the item ends without a version, whatever `side` holds, for `reason`.
    func removing(as side: MergeSide, _ reason: ItemDecision.Reason) -> ItemDecision {
        ItemDecision(id: id, outcome: .remove(side), reason: reason, deletedAt: deletedAt)
    }
}

extension Merger {
    /// R-MRG-3, R-MRG-4: decides item `id`. The same version on both sides stays; with an
    /// ancestor, the side that changed the item since wins; what is left is a conflict, which the
    /// rules of ``conflict(_:)`` decide.
    func decide(_ id: ItemID) throws -> ItemDecision {
        let item = ItemStates(
            id: id,
            states: Sides(ours: inputs.ours.state(id), theirs: inputs.theirs.state(id)),
            deletedAt: deletionTime(of: id)
        )
        let (a, b) = (item.states.ours, item.states.theirs)
        if case .live(let p) = a, case .live(let q) = b, try same(inputs.ours, p, inputs.theirs, q) {
            // The same version on both sides (the common case): whatever the ancestor says, it
            // stays (R-MRG-3, R-MRG-4).
            return item.taking(keysFrom, .sameVersion)
        }
        if let base {
            let ancestor = base.state(id)
            if try equal(a, inputs.ours, ancestor, base) {
                // R-MRG-17: theirs lacking, with no deletion record, an item the ancestor has is no
                // proof that anyone deleted it: theirs contributes nothing for it.
                let unproven = b.tombTime == nil && b.position == nil && ancestor.position != nil
                return unproven ? item.taking(.ours, .deletionUnproven) : item.taking(.theirs, .changedOnOneSide)
            }
            if try equal(b, inputs.theirs, ancestor, base) { return item.taking(.ours, .changedOnOneSide) }
        }
        // Equal states here hold no version (equal versions are decided above).
        if try equal(a, inputs.ours, b, inputs.theirs) { return item.taking(keysFrom, .noVersion) }
        return try conflict(item)
    }

    /// The time of the latest deletion of `id` either side records, under its own ID or its
    /// shadow (R-MRG-9). In format 3, a deletion that `history` has seen (its current event is in
    /// `history`) is left out: a version written after a deletion is never outdated by it,
    /// whatever its clock says (R-MRG-18); so is a deletion that `keeper` keeps under the item's shadow
    /// (R-MRG-20).
    func deletionTime(of id: ItemID, unseenBy history: EventHistory? = nil, keptBy keeper: MergeSide? = nil) -> Int64? {
        latestDeletion(of: id, unseenBy: history, keptBy: keeper)?.deletedAt
    }

    /// R-MRG-20: whether `side` keeps `deletion` of `id` under `id`'s shadow in the master scope,
    /// whose history holds the deletion's current event. That side's live version of `id` was
    /// written over that deletion or outlived it (a shadow stands only beside a live item), so it
    /// never dates that version again, even once its 16-event history has dropped the event
    /// (R3-EV-1). A deletion entry of `id` itself says nothing of the side's conflict copies of
    /// `id`: deleting an item leaves its copies as they are.
    func keeps(_ side: MergeSide, _ deletion: Format3Deletion, of id: ItemID) -> Bool {
        masterShadow(of: id, on: side)?.history.events.contains(deletion.history.current) == true
    }

    /// `side`'s shadow deletion of `id`, when it stands in the master scope (R-MRG-19).
    func masterShadow(of id: ItemID, on side: MergeSide) -> Format3Deletion? {
        guard let shadow = inputs[side].deletionEntries[VaultMerge.shadowID(of: id)], shadow.scope == .master else {
            return nil
        }
        return shadow
    }

    /// The latest deletion of `id` either side records, under its own ID or its shadow, as a
    /// deletion entry (its history, in format 3); of two at one time, the greater current event.
    /// In format 3, deletions that `history` has seen are left out, and so is a deletion entry
    /// under the shadow ID outside the master scope (R-MRG-19).
    func latestDeletion(
        of id: ItemID,
        unseenBy history: EventHistory? = nil,
        keptBy keeper: MergeSide? = nil
    ) -> Format3Deletion? {
        var latest: Format3Deletion? = nil
        for input in inputs.both where !input.tombs.isEmpty {
            for key in [id, VaultMerge.shadowID(of: id)] {
                guard let time = input.tombs[key] else { continue }
                let deletion = input.deletionEntries[key] ?? Format3Deletion(migrating: time, of: key)
                // R-MRG-19: only a holder of MK writes a shadow, in the master scope; the same ID's
                // deletion entry in another scope is a holder of BK alone's or a limited
                // recipient's, and dates nothing of `id`.
                if key != id, deletion.scope != .master { continue }
                if historyMode, let history, history.events.contains(deletion.history.current) { continue }
                if historyMode, let keeper, keeps(keeper, deletion, of: id) { continue }
                if let held = latest,
                    held.deletedAt > time
                        || (held.deletedAt == time && !(held.history.current < deletion.history.current))
                {
                    continue
                }
                latest = deletion
            }
        }
        return latest
    }

    /// R-MRG-3: whether two states hold the same version: both without a live item, or the same
    /// content.
    func equal(_ x: MergeState, _ i: MergeInput, _ y: MergeState, _ j: MergeInput) throws -> Bool {
        switch (x.position, y.position) {
        case (nil, nil): return true
        case (let p?, let q?): return try same(i, p, j, q)
        default: return false
        }
    }

    /// R-MRG-3: whether two versions have the same content: byte-identical records under one
    /// master key, or equal content hashes.
    func same(_ i: MergeInput, _ p: Int, _ j: MergeInput, _ q: Int) throws -> Bool {
        if i.sealedUnder == j.sealedUnder, i.entry(p) == j.entry(q), try i.bytes(p) == j.bytes(q) { return true }
        guard let x = try plain(i, p), let y = try plain(j, q) else { return false }
        return x.hash == y.hash
    }
}

// MARK: - Placing a version the writer does not hold

/// How a version taken from the side whose file the writer did not start from goes into the
/// merged file (R-MRG-10, R-MRG-11, R-MRG-13).
struct Placement {
    /// How the version is written.
    enum Write {
        /// As ciphertext, entry and bytes unchanged (R-MRG-11).
        case carry(SealedRecord)
        /// Decrypted and sealed again: under the kept master key, or in the key domain the
        /// merged header gives its access group (R-MRG-16, R2-GRP-3).
        case seal(ItemDraft)
        /// Left out: it cannot be read here and is sealed under the master key not kept
        /// (R-MRG-13), which the options allow.
        case drop
    }

    /// R-MRG-10: an item that gives up its ID because another has the same primary key.
    struct Clash {
        /// The item of lower rank, which loses its ID without a deletion record.
        let loser: ItemID
        /// Its version, kept as a conflict copy of itself (R-MRG-8).
        let version: Plain
        /// The version being placed, whose service and account the report lists.
        let incoming: Plain
    }

    var clash: Clash? = nil
    /// How the version is written; `nil` when it lost its primary key (R-MRG-10).
    var write: Write?
}

extension Merger {
    /// Decides how the version at `position` of input `side` is placed as item `id`: as
    /// ciphertext or sealed again, and whether it clashes with another item's primary key
    /// (R-MRG-10).
    ///
    /// - Throws: ``VaultMergeError`` `unreadableRecords` when it cannot be carried and the options
    ///   refuse dropping it (R-MRG-13).
    func placement(of id: ItemID, from side: MergeSide, position: Int) throws -> Placement {
        let input = inputs[side]
        let entry = input.entry(position)
        let sameKey = input.sealedUnder == inputs[keysFrom].sealedUnder
        guard let version = try plain(input, position) else {
            if sameKey {
                return Placement(write: .carry(SealedRecord(entry: entry, bytes: Array(try input.bytes(position)))))
            }
            // R-MRG-13: sealed under the master key not kept, and unreadable here.
            guard options.unreadableRecords == .drop else {
                throw VaultMergeError(
                    .unreadableRecords,
                    "a ThisDeviceOnly item of another device is sealed under the other side's master key "
                        + "and cannot be carried into the merged file"
                )
            }
            return Placement(write: .drop)
        }
        var placement = Placement()
        if let holder = try writer.itemID(for: version.draft.primaryKey), holder != id,
            let record = try writer.record(for: holder)
        {
            let draft = try RecordCodec.openDraft(
                record.bytes[...],
                entry: record.entry,
                vaultID: writer.header.vaultID,
                keys: writer.keys
            )
            let held = Plain(
                draft: draft,
                hash: try contentHash(draft),
                entry: record.entry,
                history: try writer.currentHistory(of: holder) ?? EventHistory(version: record.entry.version)
            )
            guard held.rank < version.rank else {
                return Placement(clash: Placement.Clash(loser: id, version: version, incoming: version), write: nil)
            }
            placement.clash = Placement.Clash(loser: holder, version: held, incoming: version)
        }
        if sameKey,
            try writer.keyDomain(forAccessGroup: version.draft.attributes.accessGroup) == entry.domain
        {
            placement.write = .carry(SealedRecord(entry: entry, bytes: Array(try input.bytes(position))))
        } else {
            // Another master key, or a key domain the merged header puts the item's group in
            // (R-MRG-16, R2-GRP-3): sealed again.
            placement.write = .seal(version.draft)
        }
        return placement
    }
}
