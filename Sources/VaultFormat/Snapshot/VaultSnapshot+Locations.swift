// vault: finding items by lookup tag without reading a format-3 vault's whole index.

/// Where one live item is in a snapshot: its entry and where its record starts.
package struct ItemLocation: Sendable {
    package let entry: IndexEntry
    /// The record's absolute file offset.
    package let recordOffset: Int
}

extension VaultSnapshot {
    /// The live entries whose lookup tag is `tag` (usually none or one): formats 1 and 2 search
    /// the decrypted index; format 3 reads one node per level of every scope's tree
    /// (Spec/format-v3.md §10 step 7), not the whole index.
    ///
    /// - Throws: Format 3: `indexCorrupt` for a damaged node; the source's read error.
    package func locations(ofTag tag: UInt64) throws -> [ItemLocation] {
        if let format3 {
            return try format3.located(tag: tag).map { ItemLocation(entry: $0.entry, recordOffset: $0.recordOffset) }
        }
        return storedIndex.positions(ofTag: tag).map { position in
            ItemLocation(
                entry: storedIndex.entry(at: position),
                recordOffset: recordsOffset + storedIndex.offsets[position]
            )
        }
    }

    /// The item with `primaryKey`, found by its lookup tag; `nil` when there is none.
    ///
    /// Compares lookup tags only, then the decrypted attributes (R-IDX-5).
    package func location(of primaryKey: PrimaryKey) throws -> ItemLocation? {
        var found: ItemLocation?
        for location in try locations(ofTag: keys.lookupTag(primaryKey)) {
            let attributes = try openAttributes(
                try source.read(offset: location.recordOffset, count: location.entry.recordLength),
                entry: location.entry
            )
            guard PrimaryKey(itemClass: location.entry.itemClass, attributes: attributes) == primaryKey else {
                continue
            }
            // R-IDX-6: two items with one primary key answer for neither.
            if let found { throw VaultFormatError.samePrimaryKey(found.entry.itemID, location.entry.itemID) }
            found = location
        }
        return found
    }

    /// The item that `identity` names, in any spelling of its key (L-KC-15), as
    /// ``position(identifiedBy:itemClass:)`` finds it: by the canonical key's lookup tag, and only
    /// when that finds nothing by comparing every internet password (which reads a format-3
    /// vault's whole index).
    package func location(identifiedBy identity: ItemAttributes, itemClass: ItemClass) throws -> ItemLocation? {
        let key = PrimaryKey(itemClass: itemClass, attributes: identity.canonicalIdentity(for: itemClass))
        if let location = try location(of: key) { return location }
        guard itemClass == .internetPassword, let position = try position(identifiedBy: identity, itemClass: itemClass)
        else { return nil }
        let index = try self.index
        return ItemLocation(entry: index.entry(at: position), recordOffset: recordsOffset + index.offsets[position])
    }

    /// Decrypts the item at `location` as ``item(at:includeSecret:)`` does.
    ///
    /// - Throws: ``ItemDamage`` when the record is damaged; ``VaultFormatError`` `keyUnavailable`
    ///   or `foreignDevice` when its key is not held here; the source's read error (I/O).
    package func item(at location: ItemLocation, includeSecret: Bool) throws -> DecodedItem {
        let entry = location.entry
        let bytes: ArraySlice<UInt8>
        do {
            bytes = try source.read(offset: location.recordOffset, count: entry.recordLength)
        } catch let error as VaultFormatError {
            throw ItemDamage(entry: entry, attributes: nil, error: error)
        }
        return try decode(bytes, entry: entry, includeSecret: includeSecret)
    }

    /// The item whose record is `bytes`, with damage named as ``ItemDamage``.
    func decode(_ bytes: ArraySlice<UInt8>, entry: IndexEntry, includeSecret: Bool) throws -> DecodedItem {
        let attributes: ItemAttributes
        do {
            attributes = try openAttributes(bytes, entry: entry)
        } catch  where ItemDamage.isDamage(error) {
            throw ItemDamage(entry: entry, attributes: nil, error: error)
        }
        guard includeSecret else { return DecodedItem(entry: entry, attributes: attributes, secret: nil) }
        do {
            let secret = try RecordCodec.openSecret(bytes, entry: entry, vaultID: header.vaultID, keys: keys)
            return DecodedItem(entry: entry, attributes: attributes, secret: secret)
        } catch  where ItemDamage.isDamage(error) {
            throw ItemDamage(entry: entry, attributes: attributes, error: error)
        }
    }
}
