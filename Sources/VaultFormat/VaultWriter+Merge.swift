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
    package mutating func recordDeletion(of id: ItemID, at deletedAt: Int64) throws {
        try remove(id, now: deletedAt)
        if let existing = deletions[id], existing >= deletedAt { return }
        deletions[id] = deletedAt
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
