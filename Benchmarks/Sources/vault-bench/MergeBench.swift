// vault-bench: merge (issue 10): two replicas of N items with `changes` changes each, merged.

import Glibc
import VaultFormat
@_spi(Testing) import VaultIO

enum MergeBench {
    /// For each N: a base vault of N items, and two replicas of it that each edit, add and delete
    /// `changes` items (a tenth of the edits on the same items, so there are conflicts). Times
    /// `VaultMerge.merge` plus `encode` of the result, three-way (`merge-3way`) and two-way
    /// (`merge-2way`), with the files already open: the figure excludes the one KDF per file
    /// (the `argon2-floor` line of `inprocess` gives it). Prints one JSON line per operation.
    static func run(sizes: [Int], changes: Int, runs: Int, directory: String, password: [UInt8]) throws {
        let credentials = Credentials(password: SecretBytes(bytes: password))
        for n in sizes {
            let path = directory + "/merge-base-\(n).vault"
            unlink(path)
            _ = try InProcess.make(at: path, n: n, kdf: InProcess.cheapKDF, password: password)
            let reader = try VaultFileReader(path: path)
            let baseBytes = Array(try reader.read(offset: 0, count: reader.fileLength))
            let base = try VaultSnapshot.open(baseBytes, with: credentials)
            let ours = try VaultSnapshot.open(try replica(of: base, side: 0, changes: changes), with: credentials)
            let theirs = try VaultSnapshot.open(try replica(of: base, side: 1, changes: changes), with: credentials)
            let clock = Vault.currentTime()
            for (op, ancestor) in [("merge-3way", Optional(base)), ("merge-2way", nil)] {
                var sample = Sample()
                var conflicts = 0
                var bytes = 0
                for _ in 0..<runs {
                    sample.runs.append(
                        try timed {
                            let result = try VaultMerge.merge(ours: ours, theirs: theirs, base: ancestor)
                            bytes = result.writer.encode(now: clock).count
                            conflicts = result.report.conflicts.count
                        }
                    )
                }
                emit(
                    Result(
                        op: op,
                        n: n,
                        sample: sample,
                        extra: [("changes", "\(changes)"), ("conflicts", "\(conflicts)"), ("bytes", "\(bytes)")]
                    )
                )
            }
        }
    }

    /// A copy of `base` with `changes` changes: half edits, three tenths adds, two tenths deletions.
    /// Side 0 changes items from the start of the index, side 1 from the middle, and both edit
    /// the same `changes / 10` items at the end.
    static func replica(of base: VaultSnapshot, side: Int, changes: Int) throws -> [UInt8] {
        var writer = try VaultWriter(updating: base)
        let count = base.index.count
        let now = Vault.currentTime() + Int64(side)
        let shared = changes / 10
        let edits = changes / 2 - shared
        let adds = changes * 3 / 10
        let deletes = changes - edits - shared - adds
        let start = side == 0 ? 0 : count / 2
        func edit(_ position: Int) throws {
            let entry = base.index.entry(at: position)
            var draft = try RecordCodec.openDraft(
                try base.recordBytes(at: position),
                entry: entry,
                vaultID: base.header.vaultID,
                keys: base.keys
            )
            draft.secret = SecretBytes(utf8: "edited on \(side) at \(position)")
            draft.attributes.modificationDate = now
            try writer.put(draft, now: now)
        }
        for position in start..<start + edits { try edit(position) }
        for position in count - shared..<count { try edit(position) }
        for i in 0..<adds {
            var attributes = ItemAttributes(service: "merge-add-\(side)-\(i)", account: "bench")
            attributes.modificationDate = now
            try writer.put(
                ItemDraft(id: ItemID(random: SystemRandom()), attributes: attributes, secret: SecretBytes(utf8: "new")),
                now: now
            )
        }
        for position in start + edits..<start + edits + deletes {
            writer.remove(base.index.entry(at: position).itemID, now: now)
        }
        return writer.encode(now: now)
    }
}
