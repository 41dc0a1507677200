// vault: the writer operations a merge needs: records adopted as ciphertext, dated deletions.

extension VaultWriter {
    /// Places a record sealed in another copy of the same vault (same master key) unchanged:
    /// its entry (version, lookup tag) and bytes stay, so later merges still see the same record.
    ///
    /// Spec: Spec/merge.md (R-MRG-9).
    package mutating func adopt(_ record: SealedRecord, history: EventHistory? = nil) throws {
        try insertRaw(record, history: history)
    }

    /// Removes `id` if present and records its deletion at `deletedAt` (the later time wins
    /// when a deletion record exists). A live item never keeps a deletion record (R-IDX-2).
    ///
    /// In format 3 a deletion entry is made of the record as a migration makes one (tag 0, the
    /// master scope, an event derived from the ID and the time), so that every replica that
    /// records the same deletion makes the same entry: the R-MRG-9 shadows.
    /// In format 3, `history` (a shadow's: the history of the deletion whose time it keeps,
    /// R-MRG-9) replaces the derived event.
    package mutating func recordDeletion(of id: ItemID, at deletedAt: Int64, history: EventHistory? = nil) throws {
        if header.isVersion3 {
            let held = try deletedEntries[id]?.deletedAt ?? format3?.deletion(id)?.deletedAt ?? deletions[id]
            if let held, held >= deletedAt { return }
            var deletion = Format3Deletion(migrating: deletedAt, of: id)
            if let history { deletion.history = history }
            try recordDeletion(deletion)
            return
        }
        try remove(id, now: deletedAt)
        if let existing = deletions[id], existing >= deletedAt { return }
        deletions[id] = deletedAt
    }

    /// Format 3: removes `id` if present and records `deletion`, with its history, as the item's
    /// deletion entry (a merge takes a side's deletion, or dates a concurrent one, R-MRG-18). An
    /// entry of `id` the previous generation holds elsewhere is taken out (R3-ENT-2).
    package mutating func recordDeletion(_ deletion: Format3Deletion) throws {
        precondition(header.isVersion3, "a deletion entry is written in format 3 only")
        let id = deletion.key.itemID
        try forget(id)
        deletions[id] = deletion.deletedAt
        deletedEntries[id] = deletion
    }

    /// Removes `id` without a deletion record (a merge result that no side dated).
    package mutating func discard(_ id: ItemID) throws {
        if try remove(id, now: 0) {
            deletions[id] = nil
            deletedEntries[id] = nil
        }
    }

    /// Raises the generation written (a merge writes one more than the newer of its inputs).
    package mutating func raiseGeneration(to generation: UInt64) {
        if generation > header.generation { header.generation = generation }
    }
}
