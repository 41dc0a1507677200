// vault: merges and R-MRG-20, a deletion an input keeps (its own entry of the item, or a shadow):
// the conflict copies that deletion should still remove, in any merge order (Spec/merge.md
// R-MRG-9, R-MRG-20).
//
// Found by an outside review (atk2): R-MRG-20's first reading (a deletion an input keeps itself
// shields every copy the input holds) kept copies that a deletion should remove, and made merges
// depend on their order; R-MRG-20 now covers only an input's live version and the copies a merge
// makes of it.

import Testing
import VaultFormat
import VaultIO

@Suite("R-MRG-20 and the conflict copies a deletion should remove")
struct KeptDeletionTests {
    /// Two replicas edit X concurrently (v1 at +1 s, v2 at +2 s); their merge keeps v2 as X and v1
    /// as the conflict copy C. On that merged replica the user then deletes X at +5 s (D). C's time
    /// (+1 s) is before D's and C's history (copy event on top of v1's) does not hold D's event, so
    /// R-MRG-9 (format 3: "a copy is outdated ... by the deletions its own history has not seen")
    /// says the next merge removes C: before R-MRG-20 it did.
    ///
    /// R-MRG-20 assumes that an input holding a deletion of X "has already weighed" it against the
    /// input's copies of X. A writer's deletion of X weighs nothing: `VaultWriter.remove` leaves
    /// C in place. The deleting replica holds C and "keeps" D (its own deletion entry of X), so
    /// `removeOutdatedCopies` skips D for C (`keepers` = every side holding C), and no merge the
    /// deleting replica takes part in ever removes C: the rotated-out value v1 survives the
    /// deletion of its item, spreads to every replica merged with it, and even comes back into a
    /// replica that had already dropped it.
    @Test("a conflict copy older than a later local deletion of its item is removed by the next merge")
    func copyOlderThanLocalDeletion_isRemoved() throws {
        let (base, id) = try Replica.withOneItem()
        var a = base
        try a.set(id, service: "db", secret: "v1 (rotated out)", at: MergeClock.start + 1_000)
        var b = base
        try b.set(id, service: "db", secret: "v2", at: MergeClock.start + 2_000)
        let (conflicted, report) = try merged(b, a)
        let copyID = try #require(report.conflicts.first?.copyID)
        #expect(try conflicted.contents()[copyID] != nil, "the merge kept v1 as a conflict copy")

        var deleter = conflicted
        try deleter.delete(id, at: MergeClock.start + 5_000)

        // The deleting replica merged with each other replica, in both orders.
        for other in [a, b, conflicted] {
            for (ours, theirs) in [(deleter, other), (other, deleter)] {
                let (result, _) = try merged(ours, theirs)
                let secrets = try result.secrets()
                #expect(!secrets.contains("v1 (rotated out)"), "the copy of v1, older than D, is removed")
            }
        }
    }

    /// The control: the same deletion at the same time, made on a replica that never held C (b,
    /// which wrote v2 before the conflict merge), removes C when merged with the replica holding C:
    /// only which replica the user deleted X on decides whether the rotated-out v1 survives.
    @Test("control: a deletion made on a replica without the copy removes it")
    func copyOlderThanRemoteDeletion_isRemoved() throws {
        let (base, id) = try Replica.withOneItem()
        var a = base
        try a.set(id, service: "db", secret: "v1 (rotated out)", at: MergeClock.start + 1_000)
        var b = base
        try b.set(id, service: "db", secret: "v2", at: MergeClock.start + 2_000)
        let (conflicted, _) = try merged(b, a)
        var deleter = b
        try deleter.delete(id, at: MergeClock.start + 5_000)
        for (ours, theirs) in [(deleter, conflicted), (conflicted, deleter)] {
            let (result, _) = try merged(ours, theirs)
            let secrets = try result.secrets()
            #expect(secrets.isEmpty, "D outdates C and deletes X")
        }
    }
}

@Suite("R-MRG-20 and merge order")
struct KeptDeletionOrderTests {
    /// R-MRG-20 tests only a deletion's current event. A merged deletion entry (or shadow) stands
    /// for every deletion it absorbed (R3-EV-3), at the latest one's time: a replica that keeps
    /// the latest deletion D1 is then shielded from an older absorbed deletion D_b it never saw.
    ///
    /// X: v0; P writes L (+1 s), Q writes W (+2 s); M = Q ⊕ P holds W and the copy C of L. On M
    /// the user deletes X (D1, +5 s): x = {D1, C}; then re-adds X (+6 s): z = {V3, shadow D1, C}.
    /// y: P deletes X on top of L (D_b, +3 s): D_b saw L and is newer than C.
    /// - (x ⊕ z) ⊕ y: y dates C by D_b (z does not keep D_b): C is removed.
    /// - (x ⊕ y) ⊕ z: x ⊕ y removes C too (D_b dates it) and keeps X's deletion as D1 with D_b's
    ///   events absorbed (current event d1, time +5 s). Merged with z, C comes back: z keeps d1 (its
    ///   shadow), so R-MRG-20 skips the whole entry, D_b with it.
    /// Order-independence (`Spec/merge.md` §7) fails, and the copy of L, which D_b deleted, is
    /// revived in one order.
    @Test("three replicas merged in any order agree on a copy an absorbed deletion outdates")
    func absorbedDeletion_datesCopyInEveryOrder() throws {
        let (base, id) = try Replica.withOneItem()
        var p = base
        try p.set(id, service: "db", secret: "L (deleted by D_b)", at: MergeClock.start + 1_000)
        var q = base
        try q.set(id, service: "db", secret: "W", at: MergeClock.start + 2_000)
        let (m, report) = try merged(q, p)
        #expect(report.conflicts.first?.copyID != nil)
        var x = m
        try x.delete(id, at: MergeClock.start + 5_000)
        var z = x
        try z.set(id, service: "db", secret: "V3", at: MergeClock.start + 6_000)
        var y = p
        try y.delete(id, at: MergeClock.start + 3_000)

        let orders: [(String, Replica)] = [
            ("(x ⊕ z) ⊕ y", try merged(merged(x, z).0, y).0),
            ("(x ⊕ y) ⊕ z", try merged(merged(x, y).0, z).0),
            ("(y ⊕ z) ⊕ x", try merged(merged(y, z).0, x).0),
            ("x ⊕ (y ⊕ z)", try merged(x, merged(y, z).0).0),
        ]
        var results: [String: Set<String>] = [:]
        for (name, result) in orders {
            results[name] = Set(try result.secrets())
        }
        #expect(Set(results.values).count == 1, "every order gives the same items: \(results)")
        #expect(!results.values.contains { $0.contains("L (deleted by D_b)") }, "no order revives L")
    }

    /// The same flaw breaks idempotence (`Spec/merge.md` §7; `MergePropertyTests.idempotent` checks
    /// merge(merge(A, B), A) = merge(A, B)). A = z above ({V3, shadow D1, C}), B = y ({D_b}). A ⊕ B
    /// keeps V3 and removes C (D_b, unseen by A, dates it), and D_b survives only as an event in
    /// X's history and the shadow's (whose current event stays d1, the later deletion). Merged with
    /// A again, C comes back: A keeps d1, so R-MRG-20 skips the shadow, and nothing else dates C.
    @Test("merging the merged file with one of its inputs again changes nothing")
    func mergeWithInputAgain_changesNothing() throws {
        let (base, id) = try Replica.withOneItem()
        var p = base
        try p.set(id, service: "db", secret: "L (deleted by D_b)", at: MergeClock.start + 1_000)
        var q = base
        try q.set(id, service: "db", secret: "W", at: MergeClock.start + 2_000)
        var a = try merged(q, p).0
        try a.delete(id, at: MergeClock.start + 5_000)
        try a.set(id, service: "db", secret: "V3", at: MergeClock.start + 6_000)
        var b = p
        try b.delete(id, at: MergeClock.start + 3_000)

        let ab = try merged(a, b).0
        let abSecrets = Set(try ab.secrets())
        #expect(abSecrets == ["V3"], "A ⊕ B: D_b outdates the copy of L")
        let again = try merged(ab, a).0
        let (againContents, abContents) = (try again.contents(), try ab.contents())
        #expect(againContents == abContents, "merge(merge(A, B), A) = merge(A, B)")
    }
}
