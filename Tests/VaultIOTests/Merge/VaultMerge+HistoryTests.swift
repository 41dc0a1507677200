// vault: format-3 merges decided by item histories (Spec/merge.md R-MRG-18, Spec/format-v3.md §8).

import Testing
import VaultFormat
import VaultIO

/// A format-3 replica holding one item `X` ("db"/"alice"), written at `MergeClock.start`.
private func replicaWithX() throws -> (Replica, ItemID) {
    var replica = try Replica.empty(format: .version3)
    let id = ItemID(random: SystemRandom())
    try replica.set(id, service: "db", secret: "v0", at: MergeClock.start)
    return (replica, id)
}

/// Item `id`'s secret in `replica`, or `nil`.
private func secret(_ replica: Replica, _ id: ItemID) throws -> String? {
    try replica.open().items(includeSecrets: true).first { $0.entry.itemID == id }?.secret?.utf8String
}

@Suite("Merges of format-3 histories")
struct HistoryMergeTests {
    /// Issue 21: Syncthing keeps either side, with no ancestor; the older side's version used to
    /// come back as a conflict copy holding the secret rotated out.
    @Test("a two-way merge with an older copy takes the newer version silently, in both directions")
    func olderCopyLosesSilently() throws {
        let (old, id) = try replicaWithX()
        var new = old
        for (step, value) in ["v1", "v2", "v3"].enumerated() {
            try new.set(id, service: "db", secret: value, at: MergeClock.start + Int64(step + 1) * 1_000)
        }
        for (ours, theirs) in [(new, old), (old, new)] {
            let (result, report) = try merged(ours, theirs)
            #expect(try secret(result, id) == "v3")
            #expect(report.conflicts.isEmpty)
            #expect(try result.open().index.count == 1, "no conflict copy of a rotated-out secret")
            _ = try result.open().verify()
        }
    }

    /// Clocks do not decide a descent: an edit made on a machine whose clock is an hour behind
    /// still replaces the version it was made on.
    @Test("an edit with an earlier clock still replaces the version it was made on")
    func descentIgnoresClocks() throws {
        let (base, id) = try replicaWithX()
        var skewed = base
        try skewed.set(id, service: "db", secret: "rotated", at: MergeClock.start - 3_600_000)
        let (result, report) = try merged(base, skewed)
        #expect(try secret(result, id) == "rotated")
        #expect(report.conflicts.isEmpty)
    }

    /// Issue 21's three-way case: an older copy committed on a branch is theirs, and its
    /// generation is below the ancestor's. Format 2.0 refuses it (R-MRG-17); histories take ours.
    @Test("a three-way merge with an older copy as theirs keeps ours and refuses nothing")
    func olderTheirsIsAnAncestor() throws {
        let (old, id) = try replicaWithX()
        var ancestor = old
        try ancestor.set(id, service: "db", secret: "v1", at: MergeClock.start + 1_000)
        var ours = ancestor
        try ours.set(id, service: "db", secret: "v2", at: MergeClock.start + 2_000)
        let (result, report) = try merged(ours, old, base: ancestor)
        #expect(try secret(result, id) == "v2")
        #expect(report.conflicts.isEmpty && !report.changesOurs)
    }

    @Test("concurrent edits keep one conflict copy, and merging the result again changes nothing")
    func concurrentEditsConverge() throws {
        let (base, id) = try replicaWithX()
        var a = base
        var b = base
        try a.set(id, service: "db", secret: "from a", at: MergeClock.start + 1_000)
        try b.set(id, service: "db", secret: "from b", at: MergeClock.start + 2_000)
        let (ab, report) = try merged(a, b)
        #expect(report.conflicts.map(\.kind) == [.bothChanged])
        #expect(try secret(ab, id) == "from b")
        #expect(try ab.open().index.count == 2)
        let (ba, _) = try merged(b, a)
        #expect(try ab.contents() == ba.contents())
        for input in [a, b, ab, ba] {
            let (again, againReport) = try merged(ab, input)
            #expect(!againReport.changesOurs, "the merged version descends from both inputs")
            #expect(try again.contents() == ab.contents())
        }
        // A third replica that saw only `a` and then edits: concurrent with b, descends from a.
        var c = a
        try c.set(id, service: "db", secret: "from c", at: MergeClock.start + 3_000)
        let (abc, _) = try merged(ab, c)
        #expect(try secret(abc, id) == "from c")
    }

    @Test("a deletion made on a version replaces it silently; a concurrent edit and deletion is listed")
    func deletions() throws {
        let (base, id) = try replicaWithX()
        var deleted = base
        try deleted.delete(id, at: MergeClock.start + 1_000)
        for (ours, theirs) in [(base, deleted), (deleted, base)] {
            let (result, report) = try merged(ours, theirs)
            #expect(try secret(result, id) == nil)
            #expect(report.conflicts.isEmpty)
        }
        var edited = base
        try edited.set(id, service: "db", secret: "edited later", at: MergeClock.start + 2_000)
        let (result, report) = try merged(deleted, edited)
        #expect(report.conflicts.map(\.kind) == [.changedAndDeleted])
        #expect(try secret(result, id) == "edited later", "the edit is newer than the deletion")
        let (back, backReport) = try merged(result, deleted)
        #expect(!backReport.changesOurs)
        #expect(try secret(back, id) == "edited later")
    }

    @Test("a format-2.0-style copy merged into format 3 is migrated, and its versions are ancestors")
    func mixedFormats() throws {
        var old = try Replica.empty(format: .version1_1)
        let id = ItemID(random: SystemRandom())
        try old.set(id, service: "db", secret: "v0", at: MergeClock.start)
        var migrated = old
        var writer = try VaultWriter(updating: migrated.open())
        try writer.upgradeToVersion3()
        migrated.bytes = try writer.encode(now: MergeClock.end)
        try migrated.set(id, service: "db", secret: "v1", at: MergeClock.start + 1_000)
        for (ours, theirs) in [(migrated, old), (old, migrated)] {
            let (result, report) = try merged(ours, theirs)
            #expect(result.bytes[8] == 3, "the merged file is format 3")
            #expect(try secret(result, id) == "v1")
            #expect(report.conflicts.isEmpty)
        }
    }

    // MARK: - Found by the reliability suite (RELIABILITY.md, suite 9, sync-two-way)

    /// The state a merge keeps keeps the winner's current event and takes in the loser's history
    /// (R3-EV-3), so a replica that replaced the winner's content (b → b2) without seeing the loser
    /// (a) descends from the merged state. When the merged state took a new merge event instead,
    /// b2 and it were concurrent and b, rotated out, came back as a conflict copy (found by
    /// sync-two-way).
    @Test("a merged state's content that one side replaced does not come back as a conflict copy")
    func mergedContentReplacedOnOneSide_isNotCopied() throws {
        let (base, id) = try replicaWithX()
        var a = base
        try a.set(id, service: "db", secret: "a", at: MergeClock.start + 1_000)
        var b = base
        try b.set(id, service: "db", secret: "b", at: MergeClock.start + 2_000)
        let (ab, first) = try merged(a, b)
        #expect(try secret(ab, id) == "b" && first.conflicts.count == 1, "a and b are concurrent: b wins, a is copied")
        try b.set(id, service: "db", secret: "b2", at: MergeClock.start + 3_000)
        let (result, _) = try merged(b, ab)
        #expect(try secret(result, id) == "b2")
        let secrets = try result.open().items(includeSecrets: true).map { $0.secret!.utf8String }
        #expect(!secrets.contains("b"), "b was rotated out by b2 on the replica merged into")
        #expect(secrets.contains("a"), "a's conflict copy, made by the first merge, stays")
    }

    /// A deletion dates only the versions that have not seen it (R-MRG-18). A replica whose clock
    /// is an hour behind writes vC after it saw a deletion D, so vC descends from D and is dated
    /// before it; another replica kept a concurrent vB over D and recorded D as a shadow (R-MRG-9).
    /// When the shadow kept only D's time, it outdated vC when vB and vC met: no copy, and the
    /// acknowledged write was gone (found by sync-two-way with clocks ±1 h apart). The shadow now
    /// keeps D's history, which vC holds.
    @Test("a write made after a deletion is kept when its clock dates it before the deletion")
    func writeAfterDeletion_withSlowClock_isKept() throws {
        let (base, id) = try replicaWithX()
        var deleter = base
        try deleter.delete(id, at: MergeClock.start + 10_000)
        var fast = base
        try fast.set(id, service: "db", secret: "vB", at: MergeClock.start + 20_000)
        let (kept, _) = try merged(fast, deleter)
        #expect(try secret(kept, id) == "vB", "vB is concurrent with the deletion and newer: it stays")
        var (slow, _) = try merged(base, deleter)
        #expect(try secret(slow, id) == nil, "the deletion descends from v0: taken silently")
        try slow.set(id, service: "db", secret: "vC", at: MergeClock.start + 5_000)
        let (result, _) = try merged(slow, kept)
        let secrets = try result.open().items(includeSecrets: true).map { $0.secret!.utf8String }
        #expect(secrets.contains("vC"), "vC was written after the deletion: kept as the item or as a copy")
        #expect(try secret(result, id) == "vB", "vB and vC are concurrent, and vB is newer")
    }

    /// R-MRG-9 outdates the newer of two concurrent versions by a deletion it never saw; the older
    /// one, written after that deletion on a slow clock, is kept, as merging with the deletion
    /// first keeps it.
    @Test("a version written after a deletion outlives a newer version that the deletion outdates")
    func olderVersionWrittenAfterDeletion_outlivesAnOutdatedNewerOne() throws {
        let (base, id) = try replicaWithX()
        var deleter = base
        try deleter.delete(id, at: MergeClock.start + 10_000)
        var edited = base
        try edited.set(id, service: "db", secret: "vB", at: MergeClock.start + 8_000)
        var (slow, _) = try merged(base, deleter)
        try slow.set(id, service: "db", secret: "vC", at: MergeClock.start + 5_000)
        var (withDeletion, _) = try merged(edited, deleter)
        #expect(try secret(withDeletion, id) == nil, "vB is older than the deletion it never saw")
        (withDeletion, _) = try merged(withDeletion, slow)
        let (direct, _) = try merged(slow, edited)
        let (directOther, _) = try merged(edited, slow)
        for result in [withDeletion, direct, directOther] {
            #expect(try secret(result, id) == "vC", "vC descends from the deletion that outdates vB")
            let secrets = try result.open().items(includeSecrets: true).map { $0.secret!.utf8String }
            #expect(!secrets.contains("vB"), "an outdated version leaves no copy")
        }
    }

    /// A conflict copy the user deleted is not made again by a later merge of the same versions,
    /// even when the deleting machine's clock dated the deletion before the copied version.
    @Test("a deleted conflict copy stays deleted whatever the deleting clock said")
    func deletedCopy_isNotMadeAgain_withASlowClock() throws {
        let (base, id) = try replicaWithX()
        var a = base
        try a.set(id, service: "db", secret: "a", at: MergeClock.start + 20_000)
        var b = base
        try b.set(id, service: "db", secret: "b", at: MergeClock.start + 30_000)
        var (ab, report) = try merged(a, b)
        let copyID = try #require(report.conflicts.first?.copyID)
        try ab.delete(copyID, at: MergeClock.start + 1_000)
        for (ours, theirs) in [(ab, a), (a, ab), (ab, b)] {
            let (result, _) = try merged(ours, theirs)
            let secrets = try result.open().items(includeSecrets: true).map { $0.secret!.utf8String }
            #expect(secrets == ["b"], "the copy of a stays deleted")
        }
    }
}
