// vault: the rules that decide an item whose change the ancestor does not settle (R-MRG-6 to R-MRG-9, R-MRG-13).

extension Merger {
    /// R-MRG-6, R-MRG-7: the two sides hold different states and the ancestor (when given) does
    /// not say which side changed the item. What each side holds picks the rule: two versions
    /// (R-MRG-13 when one cannot be read, else R-MRG-9, else R-MRG-7), a version and no record of
    /// the item (R-MRG-6), a version and a deletion (R-MRG-13, else R-MRG-7).
    func conflict(_ item: ItemStates) throws -> ItemDecision {
        switch (item.states.ours.position, item.states.theirs.position) {
        case (let p?, let q?):
            let x = try plain(inputs.ours, p)
            let y = try plain(inputs.theirs, q)
            guard let x, let y else { return try unreadable(item) }
            let versions = Sides(ours: x, theirs: y)
            let newer: MergeSide = x.rank < y.rank ? .theirs : .ours
            return outdated(item, versions, newer: newer) ?? bothChanged(item, versions, newer: newer)
        case (let p?, nil), (nil, let p?):
            let side: MergeSide = item.states.ours.position != nil ? .ours : .theirs
            guard let deletedAt = item.deletedAt else { return unrecorded(item, live: side) }
            guard let version = try plain(inputs[side], p) else { return try unreadable(item) }
            return changedAndDeleted(item, version: version, of: side, deletedAt: deletedAt)
        case (nil, nil):
            return item.taking(keysFrom, .noVersion)
        }
    }

    /// R-MRG-6: one side holds a version, and the other has no record of the item at all: it
    /// never had it, or its deletion record expired (R-DEL-2). Nothing is lost by keeping the
    /// version. (With an ancestor, a side lacking an item proves no deletion either, R-MRG-17.)
    func unrecorded(_ item: ItemStates, live side: MergeSide) -> ItemDecision {
        item.taking(side, .unrecorded)
    }

    /// R-MRG-7: two versions. The one of higher rank (R-MRG-5) keeps the item's ID; the other is
    /// kept as a conflict copy (R-MRG-8), unless it is device-bound or no newer than a deletion of
    /// the item (R-MRG-9). Listed as `bothChanged`.
    func bothChanged(_ item: ItemStates, _ versions: Sides<Plain>, newer: MergeSide) -> ItemDecision {
        let (won, lost) = (versions[newer], versions[newer.other])
        return item.taking(
            newer,
            .newerVersion(won: won, lost: lost, copyKept: keepsCopy(of: lost, tomb: deletedAt(item, unseenBy: lost)))
        )
    }

    /// R-MRG-7: a version and a deletion. If the version ranks higher it stays (and the deletion
    /// record goes); otherwise the item is deleted, and the edit the deletion removes is
    /// reported, not kept. A three-way merge lists either as `changedAndDeleted`; a two-way merge
    /// lists neither (a version older than a deletion is, without an ancestor, most likely the one
    /// that was deleted).
    func changedAndDeleted(_ item: ItemStates, version: Plain, of side: MergeSide, deletedAt: Int64) -> ItemDecision {
        let listed = base != nil
        if MergeRank.deletion(at: deletedAt) < version.rank {
            return item.taking(side, .newerThanDeletion(version, listed: listed))
        }
        return item.taking(side.other, .deletionNewer(than: version, listed: listed))
    }

    /// R-MRG-9: a deletion newer than both versions (kept by a shadow record when the item
    /// outlived it) deletes the item; no copy is made of an outdated version. `nil` when no
    /// deletion is that new.
    ///
    /// Format 3: only a deletion a version has not seen (R-MRG-18) dates it. When the older
    /// version was written after the deletion that outdates the newer one (on a slow clock), the
    /// older one is kept, as merging with the deletion first would have kept it.
    func outdated(_ item: ItemStates, _ versions: Sides<Plain>, newer: MergeSide) -> ItemDecision? {
        let newest = versions[newer]
        guard let deletedAt = deletedAt(item, unseenBy: newest), newest.rank < MergeRank.deletion(at: deletedAt)
        else { return nil }
        guard historyMode else { return item.removing(as: keysFrom, .outdated) }
        let older = versions[newer.other]
        if let olderDeletion = self.deletedAt(item, unseenBy: older), older.rank < MergeRank.deletion(at: olderDeletion)
        {
            var decision = item.removing(as: keysFrom, .outdated)
            decision.outdatedBy = latestDeletion(
                of: item.id,
                unseenBy: newest.history,
                keptBy: newest.side
            ).map { ($0, newer) }
            return decision
        }
        return item.taking(newer.other, .newerThanDeletion(older, listed: false))
    }

    /// `T(X)` of R-MRG-9 as it dates `version`: in format 3, only the deletions its history has
    /// not seen count.
    func deletedAt(_ item: ItemStates, unseenBy version: Plain) -> Int64? {
        historyMode
            ? deletionTime(of: item.id, unseenBy: version.history, keptBy: version.side)
            : item.deletedAt
    }

    /// R-MRG-13: a version that cannot be read here (another device's `…ThisDeviceOnly` record)
    /// cannot be dated or copied. Against another version, the later record `version` wins, then
    /// the greater record bytes; against a deletion, the version stays. Listed as `unreadable`;
    /// the other state is not kept.
    func unreadable(_ item: ItemStates) throws -> ItemDecision {
        guard let p = item.states.ours.position, let q = item.states.theirs.position else {
            return item.taking(item.states.ours.position != nil ? .ours : .theirs, .unreadable)
        }
        let vx = inputs.ours.entry(p).version
        let vy = inputs.theirs.entry(q).version
        let theirsWins =
            vy != vx ? vy > vx : Array(try inputs.ours.bytes(p)).lexicographicallyPrecedes(try inputs.theirs.bytes(q))
        return item.taking(theirsWins ? .theirs : .ours, .unreadable)
    }

    /// Whether a losing version is kept as a conflict copy: it must be newer than every deletion
    /// of its item (R-MRG-9) and not bound to a device (R-MRG-8).
    func keepsCopy(of version: Plain, tomb: Int64?) -> Bool {
        !version.draft.protectionClass.isDeviceBound && version.draft.attributes.modificationDate > (tomb ?? .min)
    }
}
