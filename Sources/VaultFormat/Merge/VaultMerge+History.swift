// vault: format 3: each item decided by the histories of its two states (R-MRG-18, R3-EV-3).

extension Merger {
    /// The history of one side's state of item `id`: its version's, its deletion entry's, or
    /// `nil` when that side has no record of the item.
    func history(of id: ItemID, on side: MergeSide) -> EventHistory? {
        let input = inputs[side]
        switch input.state(id) {
        case .live(let position): return input.histories[position]
        case .tomb: return input.deletionEntries[id]?.history
        case .none: return nil
        }
    }

    /// R-MRG-18: decides item `id` of a merge whose result is format 3, by the histories of its two
    /// states (R3-EV-2), with no ancestor and no clock:
    ///
    /// - a state that descends from the other's is taken silently, live or deleted (an older copy
    ///   of the vault, a one-sided edit, a rotated secret and a deletion all descend from what they
    ///   replaced);
    /// - a side with no record of the item gives way to the other (R-MRG-6);
    /// - two states with one current event and one content are the same state;
    /// - what is left is concurrent: the conflict rules decide (R-MRG-7, R-MRG-13, the rank of
    ///   R-MRG-5). A truly concurrent edit and deletion is always listed. The deletion times of
    ///   R-MRG-9 (shadows, outdated versions and copies) apply to concurrent states as in a two-way
    ///   merge of format 2.0, except a deletion that a version's history holds: a version written
    ///   after a deletion is never outdated by it, whatever its clock said.
    ///
    /// Whatever decides, the state kept keeps its current event and takes in the other state's
    /// history (``EventHistory/absorbing(_:)``), so that a later merge finds it equal to or
    /// descending from either input: a state that replaced the kept one descends from it, and a
    /// state the merge decided against is not decided again.
    func decideByHistory(_ id: ItemID) throws -> ItemDecision {
        let item = ItemStates(
            id: id,
            states: Sides(ours: inputs.ours.state(id), theirs: inputs.theirs.state(id)),
            deletedAt: deletionTime(of: id)
        )
        var decision = try decideStates(item)
        decision.mergedHistory = absorbedHistory(of: decision)
        return decision
    }

    private func decideStates(_ item: ItemStates) throws -> ItemDecision {
        if let base, let decision = threeWay(item, base: base) { return decision }
        guard let ours = history(of: item.id, on: .ours) else { return item.taking(.theirs, .unrecorded) }
        guard let theirs = history(of: item.id, on: .theirs) else { return item.taking(.ours, .unrecorded) }
        switch ours.relation(to: theirs) {
        case .descends: return item.taking(.ours, .descends)
        case .isAncestor: return item.taking(.theirs, .descends)
        case .equal:
            // One write, unless two files of an earlier format shared a generation number for two
            // different writes (their events are `LE64(version)`): then no history can tell them
            // apart, and the conflict rules decide alone, the same way every time.
            if try equal(item.states.ours, inputs.ours, item.states.theirs, inputs.theirs) {
                return item.taking(keysFrom, .sameVersion)
            }
            return try concurrent(item)
        case .concurrent:
            return try concurrent(item)
        }
    }

    /// R3-EV-3: the history of the merged state: the kept state's, with the other state's events
    /// taken in; for two versions that a deletion outdates (R-MRG-9), that deletion's, with both
    /// versions' taken in, the newer first. `nil` when the kept state's history is unchanged.
    private func absorbedHistory(of decision: ItemDecision) -> EventHistory? {
        let side = decision.outcome.side
        let kept = history(of: decision.id, on: side)
        var merged: EventHistory
        var others: [EventHistory]
        if let outdating = decision.outdatedBy {
            merged = outdating.deletion.history
            others = [outdating.newer, outdating.newer.other].compactMap { history(of: decision.id, on: $0) }
        } else {
            guard let kept else { return nil }
            merged = kept
            others = history(of: decision.id, on: side.other).map { [$0] } ?? []
        }
        for other in others { merged = merged.absorbing(other) }
        return merged == kept ? nil : merged
    }

    /// R-MRG-18 with an ancestor: a side whose state is the ancestor's changed nothing, so the other
    /// side's state is the result (R-MRG-4) — ours' whatever it is (an item a rebase dropped stays
    /// dropped), theirs' only when it descends from the ancestor's (a copy from another branch
    /// committed on top of the ancestor, whose edit is concurrent with the ancestor's version, is
    /// left to the history rules, R-MRG-17's stale sibling). A theirs that lacks an item the
    /// ancestor holds proves no deletion (R-MRG-17). `nil`: the histories decide.
    private func threeWay(_ item: ItemStates, base: MergeInput) -> ItemDecision? {
        func history(_ input: MergeInput) -> EventHistory? {
            switch input.state(item.id) {
            case .live(let position): input.histories[position]
            case .tomb: input.deletionEntries[item.id]?.history
            case .none: nil
            }
        }
        let (ancestor, ours, theirs) = (history(base), history(inputs.ours), history(inputs.theirs))
        if theirs?.current == ancestor?.current { return item.taking(.ours, .changedOnOneSide) }
        guard let ancestor, ours?.current == ancestor.current else { return nil }
        guard let theirs else { return item.taking(.ours, .deletionUnproven) }
        return theirs.relation(to: ancestor) == .descends ? item.taking(.theirs, .changedOnOneSide) : nil
    }

    /// R-MRG-18: the decision on two concurrent states.
    private func concurrent(_ item: ItemStates) throws -> ItemDecision {
        switch (item.states.ours, item.states.theirs) {
        case (.live, .live):
            return try conflict(item)
        case (.live(let p), .tomb(let deletedAt)), (.tomb(let deletedAt), .live(let p)):
            let side: MergeSide = item.states.ours.position != nil ? .ours : .theirs
            // R-MRG-20: the version's side keeps this very deletion as the item's shadow: the
            // version was written over it (R-DEL-3) or outlived it in an earlier merge, however
            // many writes have since pushed its event out of the version's history.
            if let deletion = inputs[side.other].deletionEntries[item.id], keeps(side, deletion, of: item.id) {
                return item.taking(side, .descends)
            }
            guard let version = try plain(inputs[side], p) else { return try unreadable(item) }
            return MergeRank.deletion(at: deletedAt) < version.rank
                ? item.taking(side, .newerThanDeletion(version, listed: true))
                : item.taking(side.other, .deletionNewer(than: version, listed: true))
        case (.tomb(let a), .tomb(let b)):
            // Two deletions: the later one's time, then the greater event, every time alike.
            let theirsLater = a != b ? b > a : ours(item.id) < theirs(item.id)
            return item.taking(theirsLater ? .theirs : .ours, .noVersion)
        default:
            return item.taking(keysFrom, .noVersion)
        }
    }

    private func ours(_ id: ItemID) -> EventID { history(of: id, on: .ours)!.current }
    private func theirs(_ id: ItemID) -> EventID { history(of: id, on: .theirs)!.current }

    /// The event of the conflict copy `id` of a losing version whose record version is `version`:
    /// derived from both, so that every replica that makes the copy makes the same event
    /// (R-MRG-18).
    static func copyEvent(of id: ItemID, losing version: UInt64) -> EventID {
        var message = Array("VLT3copy".utf8) + id.bytes
        withUnsafeBytes(of: version.littleEndian) { message.append(contentsOf: $0) }
        var bytes = BLAKE2b.hash(message, length: EventHistory.eventByteCount)
        if bytes.allSatisfy({ $0 == 0 }) { bytes[0] = 1 }
        return EventID(bytes: bytes)!
    }

    /// The history of the conflict copy `id` of the losing version `lost`: the copy's event on top
    /// of the lost version's history, so that the copy keeps what that version had seen (a
    /// deletion it was written after never outdates it, R-MRG-9).
    static func copyHistory(of id: ItemID, losing lost: Plain) -> EventHistory {
        lost.history.recording(copyEvent(of: id, losing: lost.entry.version))
    }

    /// R-MRG-18: whether `input` holds, for some item, a state that the ancestor's state of it
    /// descends from: a copy older than the ancestor (an old file committed on a branch).
    static func isOlder(_ input: MergeInput, than base: MergeInput) -> Bool {
        func history(_ side: MergeInput, _ id: ItemID) -> EventHistory? {
            switch side.state(id) {
            case .live(let position): side.histories[position]
            case .tomb: side.deletionEntries[id]?.history
            case .none: nil
            }
        }
        let ids = (0..<base.index.count).map { base.index.itemID(at: $0) } + Array(base.tombs.keys)
        return ids.contains { id in
            guard let mine = history(base, id), let theirs = history(input, id) else { return false }
            return theirs.relation(to: mine) == .isAncestor
        }
    }
}
