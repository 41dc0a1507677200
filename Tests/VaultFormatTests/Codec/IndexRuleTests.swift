// vault: index rules on hand-laid index plaintexts (Spec section 6, R-IDX-2 to R-IDX-4, R-IDX-7).

import Testing

@testable import VaultFormat

@Suite("Index rules")
struct IndexRuleTests {
    /// One 39-byte entry row: tag (big-endian), ID, class byte, version, lengths.
    static func row(
        tag: UInt64,
        id: UInt8,
        classByte: UInt8 = 0x00,
        version: UInt64 = 1,
        attributes: UInt16 = 40,
        secret: UInt32 = 32
    ) -> [UInt8] {
        var w = ByteWriter()
        for shift in (0..<8).reversed() { w.u8(UInt8(truncatingIfNeeded: tag >> (8 * shift))) }
        w.append([UInt8](repeating: id, count: 16))
        w.u8(classByte)
        w.u64(version)
        w.u16(attributes)
        w.u32(secret)
        return w.bytes
    }

    static func deletion(id: UInt8) -> [UInt8] { [UInt8](repeating: id, count: 16) + [UInt8](repeating: 0, count: 8) }

    /// Parses `rows` and `deletions` as an index of a generation-5 vault whose records section
    /// is exactly as long as the entries say (unless `recordsLength` is given).
    static func parse(_ rows: [[UInt8]], deletions: [[UInt8]] = [], recordsLength: Int? = nil) throws -> VaultIndex {
        let entries = rows.map { row -> Int in
            let classByte = row[24]
            let secret = Int(row[35]) | Int(row[36]) << 8 | Int(row[37]) << 16 | Int(row[38]) << 24
            let attributes = Int(row[33]) | Int(row[34]) << 8
            return 24 + (classByte & 15 >= 3 ? 16 : 0) + Padding.paddedLength(secret) + Padding.paddedLength(attributes)
                + 32
        }
        let header = VaultHeader(
            vaultID: [UInt8](repeating: 1, count: 16),
            created: 0,
            generation: 5,
            keyslots: [],
            indexNonce: [UInt8](repeating: 0, count: 24),
            recordCount: rows.count,
            deletionCount: deletions.count,
            recordsLength: recordsLength ?? entries.reduce(0, +)
        )
        return try VaultIndex.parse(rows.flatMap { $0 } + deletions.flatMap { $0 }, header: header)
    }

    @Test func wellFormedIndex_parses_andOffsetsArePrefixSums() throws {
        let index = try Self.parse([Self.row(tag: 1, id: 1), Self.row(tag: 2, id: 2, classByte: 0x13, secret: 100)])
        #expect(index.count == 2)
        #expect(index.offsets == [0, 24 + 32 + 64 + 32])  // R-IDX-4: entry 1 starts after entry 0's record
    }

    /// R-IDX-2: strictly ascending by (tag, itemID); equal keys and descending keys are refused at open.
    @Test func entriesOutOfOrderOrRepeated_areIndexCorrupt() {
        for rows in [
            [Self.row(tag: 2, id: 1), Self.row(tag: 1, id: 2)],
            [Self.row(tag: 1, id: 2), Self.row(tag: 1, id: 1)],
            [Self.row(tag: 1, id: 1), Self.row(tag: 1, id: 1)],
        ] {
            #expect(throws: VaultFormatError(.indexCorrupt)) { try Self.parse(rows) }
        }
    }

    /// R-IDX-2: a repeated ID under different tags passes the one-pass open check and is caught by
    /// full verification, and before any rewrite.
    @Test func repeatedItemIDUnderDifferentTags_isCaughtByVerification() throws {
        let index = try Self.parse([Self.row(tag: 1, id: 7), Self.row(tag: 2, id: 7)])
        #expect(throws: VaultFormatError(.indexCorrupt)) { try index.checkIdentifiers() }
    }

    /// R-IDX-2: deletion records ascending by ID, and never naming a live item.
    @Test func deletionRecordsOutOfOrderOrNamingALiveItem_areIndexCorrupt() throws {
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try Self.parse([Self.row(tag: 1, id: 1)], deletions: [Self.deletion(id: 9), Self.deletion(id: 8)])
        }
        let live = try Self.parse([Self.row(tag: 1, id: 1)], deletions: [Self.deletion(id: 1)])
        #expect(throws: VaultFormatError(.indexCorrupt)) { try live.checkIdentifiers() }
    }

    /// R-IDX-3: classes, versions and secret lengths out of range.
    @Test(arguments: [
        row(tag: 1, id: 1, classByte: 0x20),
        row(tag: 1, id: 1, classByte: 0x07),
        row(tag: 1, id: 1, version: 0),
        row(tag: 1, id: 1, version: 6),
        row(tag: 1, id: 1, secret: 16_777_217),
    ])
    func entryFieldOutOfRange_isIndexCorrupt(_ row: [UInt8]) {
        #expect(throws: VaultFormatError(.indexCorrupt)) { try Self.parse([row], recordsLength: 0) }
    }

    /// R-IDX-4: record lengths must add up to the records section.
    @Test func recordLengthsNotAddingUp_areIndexCorrupt() {
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try Self.parse([Self.row(tag: 1, id: 1)], recordsLength: 151)
        }
    }

    /// R-IDX-7: the stored tag is the 8 bytes BLAKE2b produced, and rows are in byte order.
    @Test func writerStoresTagBytesAsProduced_inByteOrder() throws {
        let vault = TestVault(seed: "index-rules")
        let drafts = (0..<20).map { vault.draft(service: "svc-\($0)") }
        let snapshot = try TestVault.open(try vault.file(items: drafts))
        var rows = [UInt8]()
        try snapshot.index.appendRows(0..<(try snapshot.index.count), to: &rows)
        var previous: [UInt8] = []
        for draft in drafts {
            let expected = BLAKE2b.hash(draft.primaryKey.bytes, key: snapshot.keys.lookupKey, length: 8)
            let at = try #require(
                try snapshot.index.entries.firstIndex { $0.itemID == draft.id }
            )
            #expect(Array(rows[at * 39..<at * 39 + 8]) == expected)
        }
        for position in 0..<(try snapshot.index.count) {
            let key = Array(rows[position * 39..<position * 39 + 24])
            #expect(previous.lexicographicallyPrecedes(key) || previous.isEmpty)
            previous = key
        }
    }
}

@Suite("Writer limits and ID table")
struct WriterLimitTests {
    /// R-HDR-4: a writer refuses to produce a header that readers would refuse.
    @Test func headerOverOneMebibyte_isRefusedWithLimit() throws {
        let vault = TestVault(seed: "header-limit")
        var writer = try vault.writer()
        writer.setUnknownFields([VaultHeader.UnknownField(type: 0x0100, value: [UInt8](repeating: 0, count: 1_048_400))]
        )
        #expect(throws: VaultFormatError(.limit)) {
            try writer.setKeyslots([try vault.passwordSlot(), try vault.keyFileSlot([1])])
        }
    }

    /// IDs whose halves are equal (a pattern a key holder could choose) still map correctly.
    @Test func itemIDTable_findsCraftedIDs() throws {
        let rows = (1...300).map { n -> [UInt8] in
            var row = IndexRuleTests.row(tag: UInt64(n), id: 0)
            let half = (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * (7 - $0))) }
            row.replaceSubrange(8..<24, with: half + half)
            return row
        }
        let index = try IndexRuleTests.parse(rows)
        let table = try ItemIDTable(index)
        for position in 0..<index.count {
            #expect(table.position(of: index.itemID(at: position)) == position)
        }
        #expect(table.position(of: ItemID(bytes: [UInt8](repeating: 0xEE, count: 16))) == nil)
    }

    /// A primary key with a value longer than any stored one encodes without trapping and matches nothing.
    @Test func primaryKeyWithOverLongValue_encodes_andDiffersFromTruncatedValue() {
        let long = String(repeating: "x", count: 70_000)
        let key = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(service: long, account: "a"))
        let other = PrimaryKey(
            itemClass: .genericPassword,
            attributes: ItemAttributes(service: String(long.prefix(4096)), account: "a")
        )
        #expect(key != other)
    }
}
