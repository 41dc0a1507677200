// vault: rekeying the next generation: a new master key, every record sealed again.

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
    public func foreignItems() throws(VaultFormatError) -> [ItemID] {
        var out = [ItemID]()
        for entry in entries where entry.protectionClass.isDeviceBound {
            let record = record(for: entry.itemID)!
            do {
                _ = try RecordCodec.openSecret(record.bytes[...], entry: entry, vaultID: header.vaultID, keys: keys)
            } catch  where error.code == .foreignDevice {
                out.append(entry.itemID)
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
    ) throws(VaultFormatError) -> RekeyResult {
        guard keys.hasMasterKey, newKeys.hasMasterKey else {
            throw VaultFormatError(.keyUnavailable, "a rekey needs the master key")
        }
        // Decrypt everything first, so that a refusal or a damaged record leaves the writer as it was.
        var drafts = [ItemDraft]()
        var foreign = [ItemID]()
        let current = entries
        drafts.reserveCapacity(current.count)
        for entry in current {
            let bytes = record(for: entry.itemID)!.bytes[...]
            do {
                let secret = try RecordCodec.openSecret(bytes, entry: entry, vaultID: header.vaultID, keys: keys)
                let attributes = try RecordCodec.openAttributes(
                    bytes,
                    entry: entry,
                    vaultID: header.vaultID,
                    keys: keys
                )
                drafts.append(
                    ItemDraft(
                        id: entry.itemID,
                        itemClass: entry.itemClass,
                        protectionClass: entry.protectionClass,
                        attributes: attributes,
                        secret: secret
                    )
                )
            } catch  where error.code == .foreignDevice {
                foreign.append(entry.itemID)
            }
        }
        if !foreign.isEmpty && !droppingForeign {
            throw VaultFormatError(
                .foreignDevice,
                "\(foreign.count) ThisDeviceOnly item\(foreign.count == 1 ? "" : "s") cannot be sealed again here "
                    + "(another device's, or no device secret given)"
            )
        }
        var sealed = [SealedRecord]()
        sealed.reserveCapacity(drafts.count)
        for draft in drafts {
            sealed.append(
                try RecordCodec.seal(
                    draft,
                    version: header.generation,
                    vaultID: header.vaultID,
                    keys: newKeys,
                    random: random
                )
            )
        }
        let previousSlots = header.keyslots
        header.keyslots = keyslots
        do {
            try checkKeyslots()
        } catch {
            header.keyslots = previousSlots
            throw error
        }
        // Commit: the previous generation's bytes are no longer copied; every record is fresh.
        keys = newKeys
        base = nil
        dropped = []
        changed = [:]
        changedByTag = [:]
        changed.reserveCapacity(sealed.count)
        for record in sealed {
            changed[record.entry.itemID] = record
            changedByTag[record.entry.tag, default: []].append(record.entry.itemID)
        }
        for id in foreign { deletions[id] = now }
        return RekeyResult(resealed: sealed.count, droppedForeign: foreign)
    }
}
