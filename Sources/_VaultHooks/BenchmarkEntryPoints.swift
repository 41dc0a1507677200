// vault hooks: what the benchmark package needs of the writer and the merge, which are not public API.

import VaultFormat

/// Entry points for `Benchmarks/` (a package of its own, so it cannot see `package` code).
/// They are public only here, in `_VaultHooks`, which is not part of the API.
public enum BenchmarkEntryPoints {
    /// Merges `theirs` into `ours` (three-way when `base` is given) and encodes the result, as
    /// `Vault.merge` does before it writes. Returns the encoded size and the conflict count.
    public static func mergeAndEncode(
        ours: VaultSnapshot,
        theirs: VaultSnapshot,
        base: VaultSnapshot?,
        now: Int64
    ) throws -> (bytes: Int, conflicts: Int) {
        let result = try VaultMerge.merge(ours: ours, theirs: theirs, base: base)
        return (try result.writer.encode(now: now).count, result.report.conflicts.count)
    }

    /// A copy of `base` with `changes` changes: half edits, three tenths adds, two tenths
    /// deletions. Side 0 changes items from the start of the index, side 1 from the middle, and
    /// both edit the same `changes / 10` items at the end (so that a merge meets conflicts).
    public static func replica(of base: VaultSnapshot, side: Int, changes: Int, now: Int64) throws -> [UInt8] {
        var writer = try VaultWriter(updating: base)
        let count = try base.index.count
        let shared = changes / 10
        let edits = changes / 2 - shared
        let adds = changes * 3 / 10
        let deletes = changes - edits - shared - adds
        let start = side == 0 ? 0 : count / 2
        func edit(_ position: Int) throws {
            var draft = try RecordCodec.openDraft(
                try base.recordBytes(at: position),
                entry: base.index.entry(at: position),
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
            try writer.remove(try base.index.entry(at: position).itemID, now: now)
        }
        return try writer.encode(now: now)
    }
}
