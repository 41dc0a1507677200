// vault: rekeying the next generation: a new master key, every record sealed again.

import Dispatch
import Glibc
import Synchronization

extension VaultWriter {
    /// The outcome of ``rekey(to:keyslots:droppingForeign:now:random:)``.
    public struct RekeyResult: Sendable {
        /// How many records were sealed again under the new keys.
        public let resealed: Int
        /// Device-bound items that could not be sealed again (another device's, or no device
        /// secret held) and were removed, each leaving a deletion record.
        public let droppedForeign: [ItemID]
    }

    /// The device-bound items of the next generation that these keys cannot open: another
    /// device's `…ThisDeviceOnly` items, or every device-bound item when no device secret is held.
    ///
    /// Costs one trial decryption per device-bound record (R-REC-2); other records are not read.
    public func foreignItems() throws -> [ItemID] {
        var out = [ItemID]()
        let current = try entries
        for entry in current where entry.protectionClass.isDeviceBound {
            guard let record = try self.record(for: entry.itemID) else { continue }
            let opened = Result { () throws(VaultFormatError) in
                try RecordCodec.openSecret(record.bytes[...], entry: entry, vaultID: header.vaultID, keys: keys)
            }
            switch opened {
            case .success: continue
            case .failure(let error) where error.code == .foreignDevice: out.append(entry.itemID)
            case .failure(let error): throw error
            }
        }
        return out
    }

    /// Replaces the master key: every record of the next generation is decrypted with the
    /// current keys and sealed again under `newKeys`, and the header gets `keyslots`.
    ///
    /// The vault ID, the creation time, the deletion records and every item's ID, classes,
    /// attributes and secret stay; each record gets a fresh nonce, the lookup tag of the new
    /// lookup key and `version` = the generation written (R-REC-3). Nothing changes when
    /// this throws.
    ///
    /// - Parameters:
    ///   - newKeys: The keys of the new master key; they must hold a master key and the same
    ///     device secret as the current keys (device markers depend on it, not on the master key).
    ///   - keyslots: The keyslots of the new generation, each wrapping the new master or base key.
    ///   - droppingForeign: Whether device-bound items that cannot be opened here are removed
    ///     (with a deletion record dated `now`). When `false`, they make the rekey fail.
    ///   - now: The time of the write, for deletion records.
    ///   - random: The source of the records' nonces.
    /// - Returns: How many records were sealed again and which foreign items were dropped.
    /// - Throws: `keyUnavailable` without the current master key; `foreignDevice` when foreign
    ///   items exist and `droppingForeign` is `false`; `recordCorrupt` for a damaged record;
    ///   `invalidParameter` for unusable keyslots.
    ///
    /// Spec: Spec/format-v1.md, "Keyslots" (R-KS-5) and "Write" (section 10.2).
    @discardableResult
    public mutating func rekey(
        to newKeys: VaultKeys,
        keyslots: [Keyslot],
        droppingForeign: Bool,
        now: Int64,
        random: some RandomSource = SystemRandom()
    ) throws -> RekeyResult {
        guard keys.hasMasterKey, newKeys.hasMasterKey else {
            throw VaultFormatError(.keyUnavailable, "a rekey needs the master key")
        }
        // Format 2.0: the group keys follow the new master key (R2-KEY-1), so each access group's
        // records are sealed again in the same key domain under the new GK (R2-RCP-5).
        let names = try KeyHierarchy.accessGroupNames(of: header, master: keys.master!)
        let newKeys = KeyHierarchy.keys(newKeys, groups: names, vaultID: header.vaultID)
        var groups = [AccessGroupEntry]()
        for group in header.accessGroups {
            groups.append(
                try KeyHierarchy.makeAccessGroupEntry(
                    name: names[group.domain]!,
                    domain: group.domain,
                    master: newKeys.master!,
                    vaultID: header.vaultID,
                    random: random
                )
            )
        }
        // Decrypt and seal everything first, so that a refusal or a damaged record leaves the
        // writer as it was. Records are independent: the work is split across the processors.
        let current = try entries
        let baseDeletions = try format3?.store.contents().deletions ?? [:]
        // Format 3: the deletion entry of each foreign item dropped, in its place, its event on top of
        // its history (R3-EV-1), made before the previous commit is let go.
        var foreignDeletions: [ItemID: Format3Deletion] = [:]
        if header.isVersion3 {
            for entry in current where entry.protectionClass.isDeviceBound {
                let history = try nextHistory(of: entry.itemID, random: random)
                foreignDeletions[entry.itemID] = try deletionEntry(of: entry, at: now, history: history)
            }
        }
        // Format 3: a rekey changes no item, so each record keeps its current event (§8).
        var histories: [EventHistory] = []
        if header.isVersion3 {
            for entry in current {
                if let history = self.histories[entry.itemID] {
                    histories.append(history)
                } else if let history = try baseHistory(of: entry.itemID) {
                    histories.append(history)
                } else {
                    histories.append(EventHistory(version: entry.version))
                }
            }
        }
        var records: [ArraySlice<UInt8>] = []
        records.reserveCapacity(current.count)
        for entry in current { records.append(try recordBytes(for: entry.itemID)) }
        let generation = header.generation
        let isVersion3 = header.isVersion3
        let resealed = try Self.reseal(
            current,
            records: records,
            vaultID: header.vaultID,
            version: { isVersion3 ? $0.version : generation },
            from: keys,
            to: newKeys,
            random: random
        )
        let sealed = resealed.sealed
        let foreign = resealed.foreign
        if !foreign.isEmpty && !droppingForeign {
            throw VaultFormatError(
                .foreignDevice,
                "\(foreign.count) ThisDeviceOnly item\(foreign.count == 1 ? "" : "s") cannot be sealed again here "
                    + "(another device's, or no device secret given)"
            )
        }
        // Format 1.2: every recipient stanza is rewrapped from the public key it stores (R12-RCP-6).
        let stanzas = try KeyHierarchy.rewrapRecipientStanzas(
            header.recipientStanzas,
            from: keys.master!,
            to: newKeys.master!,
            accessGroups: names,
            vaultID: header.vaultID,
            random: random
        )
        let previousSlots = header.keyslots
        header.keyslots = keyslots
        do {
            try checkKeyslots()
        } catch {
            header.keyslots = previousSlots
            throw error
        }
        // Commit: the previous generation's bytes are no longer copied; every record is fresh.
        header.recipientStanzas = stanzas
        header.accessGroups = groups
        keys = newKeys
        base = nil
        // Format 3: the previous commit's deletion entries stay, as the records do.
        for (id, deletion) in baseDeletions where deletedEntries[id] == nil { deletedEntries[id] = deletion }
        format3 = nil
        rewritesWhole = true
        self.histories = [:]
        for (entry, history) in zip(current, histories) { self.histories[entry.itemID] = history }
        dropped = []
        changed = [:]
        changedByTag = [:]
        changed.reserveCapacity(sealed.count)
        for record in sealed {
            changed[record.entry.itemID] = record
            changedByTag[record.entry.tag, default: []].append(record.entry.itemID)
        }
        for id in foreign {
            deletions[id] = now
            if let deletion = foreignDeletions[id] { deletedEntries[id] = deletion }
        }
        return RekeyResult(resealed: sealed.count, droppedForeign: foreign)
    }

    /// The stored bytes of item `id`, without copying a record of a format 1 or 2 generation.
    private func recordBytes(for id: ItemID) throws -> ArraySlice<UInt8> {
        if let record = changed[id] { return record.bytes[...] }
        guard let base else { return try record(for: id)!.bytes[...] }
        let position = base.positions.position(of: id)!
        let start = base.records.startIndex + base.index.offsets[position]
        return base.records[start..<start + base.index.entry(at: position).recordLength]
    }

    /// Opens each record of `entries` with `old` and seals it again under `new` (fresh nonce,
    /// `version`), on as many threads as there are processors for large vaults.
    ///
    /// - Returns: The sealed records, in `entries` order without the foreign ones, and the IDs of
    ///   the device-bound records `old` cannot open (`foreignDevice`).
    /// - Throws: The first other error of any record (a damaged record: `recordCorrupt`).
    private static func reseal(
        _ entries: [IndexEntry],
        records bytes: [ArraySlice<UInt8>],
        vaultID: [UInt8],
        version: @Sendable (IndexEntry) -> UInt64,
        from old: VaultKeys,
        to new: VaultKeys,
        random: some RandomSource
    ) throws(VaultFormatError) -> (sealed: [SealedRecord], foreign: [ItemID]) {
        let parts = try ParallelChunks.map(count: entries.count) {
            range throws(VaultFormatError) -> ([SealedRecord], [ItemID]) in
            // One draw of every nonce of the chunk instead of one system call per record.
            let nonces = PrefetchedRandom(count: range.count * XChaCha20Poly1305.nonceByteCount, from: random)
            var sealed = [SealedRecord]()
            var foreign = [ItemID]()
            sealed.reserveCapacity(range.count)
            for index in range {
                let entry = entries[index]
                let draft: ItemDraft
                do throws(VaultFormatError) {
                    draft = try RecordCodec.openDraft(bytes[index], entry: entry, vaultID: vaultID, keys: old)
                } catch  where error.code == .foreignDevice {
                    foreign.append(entry.itemID)
                    continue
                }
                sealed.append(
                    try RecordCodec.seal(
                        draft,
                        version: version(entry),
                        vaultID: vaultID,
                        keys: new,
                        domain: entry.domain,
                        random: nonces
                    )
                )
            }
            return (sealed, foreign)
        }
        var sealed = [SealedRecord]()
        var foreign = [ItemID]()
        sealed.reserveCapacity(entries.count)
        for (chunkSealed, chunkForeign) in parts {
            sealed += chunkSealed
            foreign += chunkForeign
        }
        return (sealed, foreign)
    }
}

/// Random bytes drawn from `source` in one call and handed out in order; when they run out,
/// `source` is asked again. Nonces need only be unpredictable and unique, not drawn one by one.
private final class PrefetchedRandom: RandomSource, Sendable {
    private let pool: Mutex<(bytes: [UInt8], next: Int)>
    private let source: any RandomSource

    init(count: Int, from source: some RandomSource) {
        self.source = source
        pool = Mutex((source.bytes(count), 0))
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let served = pool.withLock { pool -> Bool in
            guard pool.next + buffer.count <= pool.bytes.count else { return false }
            pool.bytes.withUnsafeBytes { all in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[pool.next..<pool.next + buffer.count]))
            }
            pool.next += buffer.count
            return true
        }
        if !served { source.fill(buffer) }
    }
}
