// vault: the encrypted index.

/// The decrypted index: entries sorted by lookup tag, deletion records, and
/// where each record starts.
///
/// Spec: Spec/format-v1.md, "Index" (R-IDX-1 to R-IDX-4).
public struct VaultIndex: Sendable {
    /// Entries sorted by `(tag, itemID)`.
    public let entries: [IndexEntry]
    /// Deletion records sorted by item ID.
    public let deletions: [DeletionRecord]
    /// `offsets[i]` is where entry `i`'s record starts, relative to the records section.
    public let offsets: [Int]

    /// Builds an index from sorted entries, computing offsets.
    init(entries: [IndexEntry], deletions: [DeletionRecord]) {
        self.entries = entries
        self.deletions = deletions
        var offsets = [Int]()
        offsets.reserveCapacity(entries.count)
        var next = 0
        for entry in entries {
            offsets.append(next)
            next += entry.recordLength
        }
        self.offsets = offsets
    }

    /// The positions of the entries whose tag is `tag` (usually zero or one).
    public func positions(ofTag tag: UInt64) -> Range<Int> {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].tag < tag { low = mid + 1 } else { high = mid }
        }
        var end = low
        while end < entries.count && entries[end].tag == tag { end += 1 }
        return low..<end
    }

    /// Decrypts and checks the index.
    ///
    /// - Parameters:
    ///   - ciphertext: Exactly `header.indexLength` bytes.
    ///   - headerBytes: The whole header, which is the index's associated data.
    /// - Throws: `indexCorrupt`.
    static func decode(
        _ ciphertext: ArraySlice<UInt8>, header: VaultHeader, headerBytes: [UInt8], keys: VaultKeys
    ) throws(VaultFormatError) -> VaultIndex {
        guard ciphertext.count == header.indexLength,
            let plain = XChaCha20Poly1305.open(
                ciphertext, using: keys.indexKey, nonce: header.indexNonce, authenticating: headerBytes)
        else { throw VaultFormatError(.indexCorrupt, "the index failed authentication") }
        var r = ByteReader(plain, failure: .indexCorrupt)
        var entries = [IndexEntry]()
        entries.reserveCapacity(header.recordCount)
        var ids = Set<ItemID>(minimumCapacity: header.recordCount)
        var total = 0
        for _ in 0..<header.recordCount {
            let tag = try r.read(8, "tag").reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let id = ItemID(bytes: try r.read(16, "item ID"))
            let classByte = try r.u8("class")
            guard let itemClass = ItemClass(rawValue: classByte >> 4),
                let protection = ProtectionClass(rawValue: classByte & 15)
            else { throw VaultFormatError(.indexCorrupt, "an index entry has an unknown class") }
            let version = try r.u64("version")
            let attributesLength = Int(try r.u16("attributes length"))
            let secretLength = Int(try r.u32("secret length"))
            guard version >= 1, version <= header.generation else {
                throw VaultFormatError(.indexCorrupt, "an index entry has a version outside 1...generation")
            }
            guard secretLength <= RecordCodec.maximumSecretByteCount else {
                throw VaultFormatError(.indexCorrupt, "an index entry declares a secret over the limit")
            }
            let entry = IndexEntry(
                tag: tag, itemID: id, itemClass: itemClass, protectionClass: protection, version: version,
                attributesLength: attributesLength, secretLength: secretLength)
            if let last = entries.last, !last.sortsBefore(entry) {
                throw VaultFormatError(.indexCorrupt, "index entries are out of order")
            }
            guard ids.insert(id).inserted else { throw VaultFormatError(.indexCorrupt, "an item ID appears twice") }
            total += entry.recordLength
            entries.append(entry)
        }
        var deletions = [DeletionRecord]()
        deletions.reserveCapacity(header.deletionCount)
        for _ in 0..<header.deletionCount {
            let record = DeletionRecord(itemID: ItemID(bytes: try r.read(16, "deleted ID")), deletedAt: try r.i64("time"))
            if let last = deletions.last, !(last.itemID < record.itemID) {
                throw VaultFormatError(.indexCorrupt, "deletion records are out of order")
            }
            guard !ids.contains(record.itemID) else {
                throw VaultFormatError(.indexCorrupt, "a deletion record names a live item")
            }
            deletions.append(record)
        }
        guard total == header.recordsLength else {
            throw VaultFormatError(.indexCorrupt, "record lengths do not add up to the records section")
        }
        return VaultIndex(entries: entries, deletions: deletions)
    }

    /// Encodes and encrypts the index.
    static func encode(
        entries: [IndexEntry], deletions: [DeletionRecord], headerBytes: [UInt8], nonce: [UInt8], keys: VaultKeys
    ) -> [UInt8] {
        var w = ByteWriter(capacity: entries.count * IndexEntry.byteCount + deletions.count * DeletionRecord.byteCount)
        for e in entries {
            for shift in (0..<8).reversed() { w.u8(UInt8(truncatingIfNeeded: e.tag >> (8 * shift))) }
            w.append(e.itemID.bytes)
            w.u8(e.classByte)
            w.u64(e.version)
            w.u16(UInt16(e.attributesLength))
            w.u32(UInt32(e.secretLength))
        }
        for d in deletions {
            w.append(d.itemID.bytes)
            w.i64(d.deletedAt)
        }
        defer { Sodium.wipe(&w.bytes) }
        var out = [UInt8]()
        XChaCha20Poly1305.seal(w.bytes, using: keys.indexKey, nonce: nonce, authenticating: headerBytes, appendingTo: &out)
        return out
    }
}
