// The encoded rows of the index (Spec/format-v1.md, "Index"; format 2.0 adds the key domain),
// which format 3's scan also builds its in-memory index from.

import Testing
import VaultTestSupport

@testable import VaultFormat

/// The row as the codec wrote it field by field with a `ByteWriter`, for comparison.
private func referenceRow(_ e: IndexEntry, withDomain: Bool) -> [UInt8] {
    var w = ByteWriter()
    for shift in (0..<8).reversed() { w.u8(UInt8(truncatingIfNeeded: e.tag >> (8 * shift))) }
    w.append(e.itemID.bytes)
    w.u8(e.classByte)
    w.u64(e.version)
    w.u16(UInt16(e.attributesLength))
    w.u32(UInt32(e.secretLength))
    if withDomain { w.u8(e.domain) }
    return w.bytes
}

@Suite("Index rows")
struct IndexCodecTests {
    private func entries(_ count: Int) -> [IndexEntry] {
        var generator = SplitMix64(state: 7)
        return (0..<count).map { _ in
            IndexEntry(
                tag: generator.next(),
                itemID: generator.itemID(),
                itemClass: Bool.random(using: &generator) ? .genericPassword : .internetPassword,
                protectionClass: ProtectionClass(rawValue: UInt8.random(in: 0...6, using: &generator))!,
                version: generator.next(),
                attributesLength: Int.random(in: 0...65_535, using: &generator),
                secretLength: Int.random(in: 0...16_777_216, using: &generator),
                domain: UInt8.random(in: 0...32, using: &generator)
            )
        }
    }

    @Test(
        "a row is the tag and ID big-endian, then class, version and lengths little-endian",
        arguments: [false, true]
    )
    func rowsAreTheFieldsInOrder(withDomain: Bool) {
        let entries = entries(300)
        var appended: [UInt8] = []
        for entry in entries { VaultIndex.appendRow(entry, withDomain: withDomain, to: &appended) }
        let expected = entries.flatMap { referenceRow($0, withDomain: withDomain) }
        #expect(appended == expected)
        #expect(VaultIndex.rows(of: entries, withDomain: withDomain) == expected)
        #expect(VaultIndex.rows(of: [], withDomain: withDomain).isEmpty)
    }

    @Test("format 3's rows read back as the entries they encode")
    func format3RowsReadBack() {
        let entries = entries(50)
        let index = VaultIndex(
            format3Rows: VaultIndex.rows(of: entries, withDomain: true),
            count: entries.count,
            deletions: [],
            offsets: entries.indices.map { 1_024 + $0 }
        )
        #expect(index.entries == entries)
    }
}
