// vault: EventID as the 8 bytes in file order: LE64(version) for a migrated entry, and `<` as the
// bytes' lexicographic order (Spec/format-v3.md §11, §19.5).
//
// Found by an outside review (atk2) of EventID as one big-endian UInt64 (f326e09).

import Testing
import VaultTestSupport

@testable import VaultFormat

@Suite("EventID byte order")
struct EventIDByteOrderTests {
    @Test("a migrated event is the 8 bytes LE64(version) (Spec/format-v3.md §11, §19.5)")
    func migratedVersionIsLittleEndianBytes() throws {
        #expect(EventID(migratedVersion: 7).description == "0700000000000000", "§19.5 migratedVersion7")
        for version: UInt64 in [1, 7, 0x0102_0304_0506_0708, 0x80, 0xFF00, .max, 1 << 63] {
            let expected = withUnsafeBytes(of: version.littleEndian) { Array($0) }
            #expect(EventID(migratedVersion: version).bytes == expected)
            #expect(EventID(bytes: expected) == EventID(migratedVersion: version))
        }
    }

    @Test("encode writes the bytes in file order; decode reads them back; `bytes` round-trips")
    func encodingIsFileOrder() throws {
        let raw: [UInt8] = [0xF0, 0xE0, 0xD0, 0xC0, 0xB0, 0xA0, 0x90, 0x80]
        let id = try #require(EventID(bytes: raw))
        #expect(id.bigEndianValue == 0xF0E0_D0C0_B0A0_9080)
        #expect(id.bytes == raw)
        #expect(id.description == "f0e0d0c0b0a09080")
        var writer = ByteWriter()
        EventHistory(first: id).encode(into: &writer)
        #expect(writer.bytes == [1] + raw)
        // Decode from a slice that does not start at index 0 (the reader's absolute positions).
        let padded: [UInt8] = [9, 9, 9] + writer.bytes + [9]
        var reader = ByteReader(padded[3...], failure: .indexCorrupt)
        #expect(try EventHistory.decode(from: &reader).current == id)
        #expect(EventID(bytes: [UInt8](repeating: 0, count: 8)) == nil)
        #expect(EventID(bytes: [UInt8](repeating: 1, count: 7)) == nil)
        #expect(EventID(bytes: [0, 0, 0, 0, 0, 0, 0, 1]) != nil)
    }

    @Test("`<` is the bytes' lexicographic order, for seeded random pairs and the edges")
    func orderIsLexicographic() throws {
        var random = SplitMix64(seed: 0xA7C2)
        var pairs: [([UInt8], [UInt8])] = [
            ([0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x80, 0, 0, 0, 0, 0, 0, 0]),
            ([0, 0, 0, 0, 0, 0, 0, 0xFF], [0, 0, 0, 0, 0, 0, 1, 0]),
            ([1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 2]),
        ]
        for _ in 0..<2000 {
            let a = (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
            var b = a
            let i = Int.random(in: 0..<8, using: &random)
            b[i] = UInt8.random(in: 0...255, using: &random)
            pairs.append((a, b))
            pairs.append((a, (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }))
        }
        for (a, b) in pairs {
            guard let x = EventID(bytes: a), let y = EventID(bytes: b) else { continue }
            #expect((x < y) == a.lexicographicallyPrecedes(b), "\(x) < \(y)")
            #expect((x == y) == (a == b))
        }
    }

    @Test("§19.5 absorb vector")
    func absorbVector() throws {
        func h(_ hex: [String]) throws -> EventHistory {
            try EventHistory(
                events: hex.map { s in
                    EventID(
                        bytes: stride(from: 0, to: 16, by: 2).map {
                            UInt8(
                                s[s.index(s.startIndex, offsetBy: $0)..<s.index(s.startIndex, offsetBy: $0 + 2)],
                                radix: 16
                            )!
                        }
                    )!
                }
            )
        }
        let a = try h(["f0e0d0c0b0a09080", "1111111111111111", "2222222222222222"])
        let b = try h(["0102030405060708", "1111111111111111", "3333333333333333"])
        #expect(
            a.absorbing(b).events.map(\.description)
                == ["f0e0d0c0b0a09080", "0102030405060708", "1111111111111111", "2222222222222222", "3333333333333333"]
        )
        #expect(
            EventHistory(migratedDeletionOf: ItemID(bytes: Array(0x50...0x5F)), at: 1_700_000_000_000).current
                .description
                == "a5d1697aa5253db0"
        )
    }
}
