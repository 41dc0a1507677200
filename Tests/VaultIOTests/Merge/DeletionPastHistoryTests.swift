// vault: a deletion that has left a version's 16-event history (Spec/merge.md R-MRG-20).

import Testing
import VaultFormat
import VaultIO

@Suite("Merges of format-3 histories: a deletion past 16 events")
struct DeletionPastHistoryTests {
    /// Found by sync-two-way at issue 21's size (3 replicas x 1,000 steps, clocks ±1 h apart):
    /// 4 acknowledged writes lost, each written on a slow clock many writes of its item after a
    /// deletion that a faster clock had dated later.
    ///
    /// The deletion D of X (time +10 s) meets a concurrent vB (+20 s): vB is kept and D stays as its
    /// shadow. A slow replica took D, then wrote X `writes` times (times +5 s and on, below D's),
    /// keeping D as X's shadow (R-DEL-3). Merged with vB, its last version vC is concurrent with vB
    /// and older, so it stays as a conflict copy: it was written after D. From 15 writes on, D has
    /// left vC's 16-event history (or the copy's), and only the shadow its replica keeps says that
    /// vC saw D (R-MRG-20).
    @Test(
        "a write made after a deletion is kept as a copy however many writes followed the deletion",
        arguments: [14, 15, 16, 20]
    )
    func writeAfterDeletion_isKept_afterManyWrites(writes: Int) throws {
        let (base, deleter, slow, id) = try Self.replicas(writes: writes)
        var fast = base
        try fast.set(id, service: "db", secret: "vB", at: MergeClock.start + 20_000)
        let (kept, _) = try merged(fast, deleter)
        for (ours, theirs) in [(slow, kept), (kept, slow)] {
            let (result, report) = try merged(ours, theirs)
            let items = try result.open().items(includeSecrets: true)
            let secrets = items.map { $0.secret!.utf8String }
            #expect(secrets.contains("vB") && secrets.contains("vC\(writes)"), "the last write is kept as a copy")
            let copyID = try #require(report.conflicts.first?.copyID)
            #expect(items.contains { $0.entry.itemID == copyID }, "the copy the merge reports is in the result")
            // Carried into a later merge with the deletion, where no shadow stands beside the copy,
            // the copy's history says it met the deletion (R-MRG-20).
            for (x, y) in [(result, deleter), (deleter, result)] {
                let later = try merged(x, y).0.open().items(includeSecrets: true)
                #expect(later.contains { $0.entry.itemID == copyID }, "the copy outlives the deletion it met")
            }
        }
    }

    /// The same slow replica merged with the deletion alone: its version was written over the
    /// deletion, so it stays, silently, whatever the clocks say.
    @Test("a version written over a deletion outlives it after many writes, on a slow clock", arguments: [14, 20])
    func versionWrittenOverDeletion_outlivesIt(writes: Int) throws {
        let (_, deleter, slow, _) = try Self.replicas(writes: writes)
        for (ours, theirs) in [(slow, deleter), (deleter, slow)] {
            let (result, report) = try merged(ours, theirs)
            let secrets = try result.secrets()
            #expect(secrets == ["vC\(writes)"])
            #expect(report.conflicts.isEmpty)
        }
    }

    /// X written at the start (`base`), deleted at +10 s (`deleter`), and a slow replica that took
    /// the deletion and wrote X `writes` times at +5 s and on, below the deletion's time.
    static func replicas(writes: Int) throws -> (base: Replica, deleter: Replica, slow: Replica, id: ItemID) {
        let (base, id) = try Replica.withOneItem()
        var deleter = base
        try deleter.delete(id, at: MergeClock.start + 10_000)
        var (slow, _) = try merged(base, deleter)
        for write in 1...writes {
            try slow.set(id, service: "db", secret: "vC\(write)", at: MergeClock.start + 5_000 + Int64(write))
        }
        return (base, deleter, slow, id)
    }
}
