// vault: the encrypted index.

/// The decrypted index: entries sorted by lookup tag, deletion records, and
/// where each record starts.
///
/// Entries stay in their encoded form and are decoded on demand, so that opening
/// a vault of 100,000 items costs one decryption and one pass over the bytes.
///
/// Spec: Spec/format-v1.md, "Index" (R-IDX-1 to R-IDX-4).
public struct VaultIndex: Sendable {
    private let plain: [UInt8]
    /// The number of entries.
    public let count: Int
    /// Deletion records sorted by item ID.
    public let deletions: [DeletionRecord]
    /// `offsets[i]` is where entry `i`'s record starts, relative to the records section.
    public let offsets: [Int]
    /// Bytes of one entry: 39, or 40 in format 2.0 (R2-IDX-1).
    let stride: Int

    /// Every entry, decoded (O(n); use ``entry(at:)`` for one).
    public var entries: [IndexEntry] { (0..<count).map(entry(at:)) }

    /// The entry at `position`, in `(tag, itemID)` order.
    public func entry(at position: Int) -> IndexEntry {
        plain.withUnsafeBytes { raw in
            let base = position * stride
            let classByte = raw[base + 24]
            return IndexEntry(
                tag: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt64.self)),
                itemID: ItemID(bytes: UnsafeRawBufferPointer(rebasing: raw[base + 8..<base + 24])),
                itemClass: ItemClass(rawValue: classByte >> 4)!,
                protectionClass: ProtectionClass(rawValue: classByte & 15)!,
                version: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 25, as: UInt64.self)),
                attributesLength: Int(
                    UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: base + 33, as: UInt16.self))
                ),
                secretLength: Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 35, as: UInt32.self))),
                domain: stride > IndexEntry.byteCount ? raw[base + 39] : 0
            )
        }
    }

    /// The tag of the entry at `position`.
    func tag(at position: Int) -> UInt64 {
        plain.withUnsafeBytes {
            UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: position * stride, as: UInt64.self))
        }
    }

    /// The positions of the entries whose tag is `tag` (usually zero or one).
    public func positions(ofTag tag: UInt64) -> Range<Int> {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self.tag(at: mid) < tag { low = mid + 1 } else { high = mid }
        }
        var end = low
        while end < count && self.tag(at: end) == tag { end += 1 }
        return low..<end
    }

    /// Decrypts and checks the index in one pass (R-IDX-1 to R-IDX-4).
    ///
    /// Item-ID uniqueness and deletion records naming live items (R-IDX-2) need a
    /// set of every ID; ``VaultSnapshot/verify()`` checks them, since the index is
    /// authenticated and only a key holder could write such an index.
    ///
    /// - Parameters:
    ///   - ciphertext: Exactly `header.indexLength` bytes.
    ///   - headerBytes: The whole header, which is the index's associated data.
    /// - Throws: `indexCorrupt`.
    static func decode(
        _ ciphertext: ArraySlice<UInt8>,
        header: VaultHeader,
        headerBytes: [UInt8],
        keys: VaultKeys
    ) throws(VaultFormatError) -> VaultIndex {
        guard ciphertext.count == header.indexLength,
            let plain = XChaCha20Poly1305.open(
                ciphertext,
                using: keys.indexKey,
                nonce: header.indexNonce,
                authenticating: headerBytes
            )
        else { throw VaultFormatError(.indexCorrupt, "the index failed authentication") }
        return try parse(plain, header: header)
    }

    /// Checks and wraps a decrypted index (the part of ``decode`` after the AEAD).
    package static func parse(_ plain: [UInt8], header: VaultHeader) throws(VaultFormatError) -> VaultIndex {
        guard plain.count == header.indexLength - XChaCha20Poly1305.tagByteCount else {
            throw VaultFormatError(.indexCorrupt, "the index has the wrong length")
        }
        let count = header.recordCount
        let stride = header.indexEntryByteCount
        let domains = Set(header.accessGroups.map(\.domain))
        var offsets = [Int](repeating: 0, count: count)
        let problem: String? = plain.withUnsafeBytes { raw in
            var total = 0
            var previousTag: UInt64 = 0
            var previousID = (UInt64(0), UInt64(0))
            for position in 0..<count {
                let base = position * stride
                let tag = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt64.self))
                let id = (
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self))
                )
                if position > 0 && (tag, id.0, id.1) <= (previousTag, previousID.0, previousID.1) {
                    return "index entries are out of order"
                }
                let classByte = raw[base + 24]
                guard classByte >> 4 <= 1, classByte & 15 <= 6 else { return "an index entry has an unknown class" }
                let version = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 25, as: UInt64.self))
                guard version >= 1, version <= header.generation else {
                    return "an index entry has a version outside 1...generation"
                }
                let attributesLength = Int(
                    UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: base + 33, as: UInt16.self))
                )
                let secretLength = Int(
                    UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 35, as: UInt32.self))
                )
                guard secretLength <= RecordCodec.maximumSecretByteCount else {
                    return "an index entry declares a secret over the limit"
                }
                // Format 2.0: the key domain is 0 or a domain of the header's table (R2-IDX-1).
                if stride > IndexEntry.byteCount, raw[base + 39] != 0, !domains.contains(raw[base + 39]) {
                    return "an index entry names an unknown key domain"
                }
                offsets[position] = total
                total +=
                    XChaCha20Poly1305.nonceByteCount + (classByte & 15 >= 3 ? 16 : 0)
                    + Padding.paddedLength(secretLength) + Padding.paddedLength(attributesLength)
                    + 2 * XChaCha20Poly1305.tagByteCount
                previousTag = tag
                previousID = id
            }
            return total == header.recordsLength ? nil : "record lengths do not add up to the records section"
        }
        if let problem { throw VaultFormatError(.indexCorrupt, problem) }
        var r = ByteReader(plain[(count * stride)...], failure: .indexCorrupt)
        var deletions = [DeletionRecord]()
        deletions.reserveCapacity(header.deletionCount)
        for _ in 0..<header.deletionCount {
            let record = DeletionRecord(
                itemID: ItemID(bytes: try r.read(16, "deleted ID")),
                deletedAt: try r.i64("time")
            )
            if let last = deletions.last, !(last.itemID < record.itemID) {
                throw VaultFormatError(.indexCorrupt, "deletion records are out of order")
            }
            deletions.append(record)
        }
        return VaultIndex(plain: plain, count: count, deletions: deletions, offsets: offsets, stride: stride)
    }

    /// Checks R-IDX-2's set rules: unique item IDs, no deletion record naming a live item.
    package func checkIdentifiers() throws(VaultFormatError) { _ = try positionsByID() }

    /// Maps every item ID to its position, checking R-IDX-2's set rules on the way.
    func positionsByID() throws(VaultFormatError) -> ItemIDTable {
        let table = try ItemIDTable(self)
        for deletion in deletions where table.position(of: deletion.itemID) != nil {
            throw VaultFormatError(.indexCorrupt, "a deletion record names a live item")
        }
        return table
    }

    /// The item ID of the entry at `position`.
    func itemID(at position: Int) -> ItemID {
        plain.withUnsafeBytes { raw in
            let base = position * stride
            return ItemID(
                high: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self)),
                low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self))
            )
        }
    }

    /// Appends the encoded rows of the entries in `positions` (39 bytes each), as stored.
    func appendRows(_ positions: Range<Int>, to out: inout [UInt8]) {
        out.append(
            contentsOf: plain[positions.lowerBound * stride..<positions.upperBound * stride]
        )
    }

    /// Whether the entry at `position` sorts before `entry` by (tag, item ID).
    func entry(at position: Int, sortsBefore entry: IndexEntry) -> Bool {
        let tag = self.tag(at: position)
        return tag != entry.tag ? tag < entry.tag : itemID(at: position) < entry.itemID
    }

    /// Appends the encoding of `entry` (39 bytes; 40 with the key domain in format 2.0).
    static func appendRow(_ e: IndexEntry, withDomain: Bool = false, to out: inout [UInt8]) {
        let count = IndexEntry.byteCount + (withDomain ? 1 : 0)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: IndexEntry.byteCount + 1) { row in
            storeRow(e, withDomain: withDomain, at: 0, in: UnsafeMutableRawBufferPointer(row))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: row[..<count]))
        }
    }

    /// The encoded rows of `entries`, in order, written into one array (a format-3 scan builds one
    /// row per entry: no `ByteWriter`, no item ID byte array, no append per field).
    static func rows(of entries: [IndexEntry], withDomain: Bool) -> [UInt8] {
        let stride = IndexEntry.byteCount + (withDomain ? 1 : 0)
        return [UInt8](unsafeUninitializedCapacity: entries.count * stride) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for (position, entry) in entries.enumerated() {
                storeRow(entry, withDomain: withDomain, at: position * stride, in: raw)
            }
            count = entries.count * stride
        }
    }

    /// Writes the encoding of `entry` at `offset` of `raw`.
    private static func storeRow(
        _ e: IndexEntry,
        withDomain: Bool,
        at offset: Int,
        in raw: UnsafeMutableRawBufferPointer
    ) {
        raw.storeBytes(of: e.tag.bigEndian, toByteOffset: offset, as: UInt64.self)
        raw.storeBytes(of: e.itemID.high.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
        raw.storeBytes(of: e.itemID.low.bigEndian, toByteOffset: offset + 16, as: UInt64.self)
        raw.storeBytes(of: e.classByte, toByteOffset: offset + 24, as: UInt8.self)
        raw.storeBytes(of: e.version.littleEndian, toByteOffset: offset + 25, as: UInt64.self)
        raw.storeBytes(of: UInt16(e.attributesLength).littleEndian, toByteOffset: offset + 33, as: UInt16.self)
        raw.storeBytes(of: UInt32(e.secretLength).littleEndian, toByteOffset: offset + 35, as: UInt32.self)
        if withDomain { raw.storeBytes(of: e.domain, toByteOffset: offset + 39, as: UInt8.self) }
    }

    /// Appends deletion records and encrypts the index plaintext, then wipes it.
    ///
    /// - Parameter plain: The encoded entries, in index order; deletion records are appended here.
    static func seal(
        entries plain: inout [UInt8],
        deletions: [DeletionRecord],
        headerBytes: [UInt8],
        nonce: [UInt8],
        keys: VaultKeys
    ) -> [UInt8] {
        var w = ByteWriter(capacity: deletions.count * DeletionRecord.byteCount)
        for d in deletions {
            w.append(d.itemID.bytes)
            w.i64(d.deletedAt)
        }
        plain.append(contentsOf: w.bytes)
        defer { Sodium.wipe(&plain) }
        var out = [UInt8]()
        out.reserveCapacity(plain.count + XChaCha20Poly1305.tagByteCount)
        XChaCha20Poly1305.seal(
            plain,
            using: keys.indexKey,
            nonce: nonce,
            authenticating: headerBytes,
            appendingTo: &out
        )
        return out
    }
}

extension VaultIndex {
    /// An index without entries or deletion records.
    package static let empty = VaultIndex(plain: [], count: 0, deletions: [], offsets: [], stride: IndexEntry.byteCount)

    /// The live entries of a format-3 commit, read from its scope trees (Spec/format-v3.md §6):
    /// rows in the 40-byte layout of format 2.0 with the key domain, sorted by `(tag, itemID)`,
    /// and each record's absolute file offset.
    package init(format3Rows rows: [UInt8], count: Int, deletions: [DeletionRecord], offsets: [Int]) {
        self.init(plain: rows, count: count, deletions: deletions, offsets: offsets, stride: IndexEntry.byteCount + 1)
    }
}
