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
    ///   R-MRG-5), and the state kept takes a merge event that descends from both, so that no later
    ///   merge sees the pair as concurrent again. A truly concurrent edit and deletion is always
    ///   listed. The deletion times of R-MRG-9 (shadows, outdated versions and copies) apply to
    ///   concurrent states as in a two-way merge of format 2.0, so that any order of merges gives
    ///   the same items.
    func decideByHistory(_ id: ItemID) throws -> ItemDecision {
        let item = ItemStates(
            id: id,
            states: Sides(ours: inputs.ours.state(id), theirs: inputs.theirs.state(id)),
            deletedAt: deletionTime(of: id)
        )
        guard let ours = history(of: id, on: .ours) else { return item.taking(.theirs, .unrecorded) }
        guard let theirs = history(of: id, on: .theirs) else { return item.taking(.ours, .unrecorded) }
        switch ours.relation(to: theirs) {
        case .descends: return item.taking(.ours, .descends)
        case .isAncestor: return item.taking(.theirs, .descends)
        case .equal:
            // One write, unless two files of an earlier format shared a generation number for two
            // different writes (their events are `LE64(version)`): then no merge event can tell
            // them apart, and the conflict rules decide alone, the same way every time.
            if try equal(item.states.ours, inputs.ours, item.states.theirs, inputs.theirs) {
                return item.taking(keysFrom, .sameVersion)
            }
            return try concurrent(item, merged: nil)
        case .concurrent:
            return try concurrent(item, merged: EventHistory.merging(ours, theirs))
        }
    }

    /// R-MRG-18: the decision on two concurrent states, which takes `merged` as its history.
    private func concurrent(_ item: ItemStates, merged: EventHistory?) throws -> ItemDecision {
        var decision: ItemDecision
        switch (item.states.ours, item.states.theirs) {
        case (.live, .live):
            decision = try conflict(item)
        case (.live(let p), .tomb(let deletedAt)), (.tomb(let deletedAt), .live(let p)):
            let side: MergeSide = item.states.ours.position != nil ? .ours : .theirs
            guard let version = try plain(inputs[side], p) else { return try unreadable(item) }
            decision =
                MergeRank.deletion(at: deletedAt) < version.rank
                ? item.taking(side, .newerThanDeletion(version, listed: true))
                : item.taking(side.other, .deletionNewer(than: version, listed: true))
        case (.tomb(let a), .tomb(let b)):
            // Two deletions: the later one's time, then the greater event, every time alike.
            let theirsLater = a != b ? b > a : ours(item.id) < theirs(item.id)
            decision = item.taking(theirsLater ? .theirs : .ours, .noVersion)
        default:
            return item.taking(keysFrom, .noVersion)
        }
        decision.mergedHistory = merged
        return decision
    }

    private func ours(_ id: ItemID) -> EventID { history(of: id, on: .ours)!.current }
    private func theirs(_ id: ItemID) -> EventID { history(of: id, on: .theirs)!.current }

    /// The history of the conflict copy `id` of a losing version whose record version is
    /// `version`: one event derived from both, so that every replica that makes the copy makes the
    /// same entry (R-MRG-18).
    static func copyHistory(of id: ItemID, losing version: UInt64) -> EventHistory {
        var message = Array("VLT3copy".utf8) + id.bytes
        withUnsafeBytes(of: version.littleEndian) { message.append(contentsOf: $0) }
        var bytes = BLAKE2b.hash(message, length: EventHistory.eventByteCount)
        if bytes.allSatisfy({ $0 == 0 }) { bytes[0] = 1 }
        return EventHistory(first: EventID(bytes: bytes)!)
    }
}
