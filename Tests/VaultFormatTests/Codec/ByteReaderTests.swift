// vault: the bounds-checked reader and LEB128 varints (R-ATT-1).

import Testing
import VaultFormat

@Suite("ByteReader")
struct ByteReaderTests {
    @Test(arguments: [VaultFormatError.Code.structure, .recordCorrupt, .indexCorrupt])
    func readPastEnd_throwsTheConfiguredCode(code: VaultFormatError.Code) {
        var reader = ByteReader([1, 2, 3], failure: code)
        #expect(throws: VaultFormatError(code)) { try reader.u32("value") }
        #expect(throws: VaultFormatError(code)) { try reader.read(4, "bytes") }
        #expect(throws: VaultFormatError(code)) { try reader.read(-1, "bytes") }
        #expect(throws: VaultFormatError(code)) { try reader.u64("value") }
    }

    @Test func defaultFailureCode_isStructure() {
        var reader = ByteReader([UInt8]())
        #expect(throws: VaultFormatError(.structure)) { try reader.u8("value") }
    }

    @Test func failedRead_consumesNothing() throws {
        var reader = ByteReader([0x34, 0x12, 0xFF])
        #expect(throws: VaultFormatError.self) { try reader.u32("value") }
        #expect(reader.remaining == 3)
        #expect(try reader.u16("value") == 0x1234)
        #expect(try reader.u8("value") == 0xFF)
        #expect(reader.isAtEnd)
        #expect(throws: VaultFormatError(.structure)) { try reader.u8("value") }
    }

    @Test func integers_areLittleEndian() throws {
        var reader = ByteReader([1, 2, 3, 4, 5, 6, 7, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try reader.u64("value") == 0x0807_0605_0403_0201)
        #expect(try reader.i64("value") == -1)
    }

    @Test func u64BigEndian_readsTheFirstByteAsTheHighest() throws {
        let bytes: [UInt8] = [9, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        var reader = ByteReader(bytes[1...], failure: .indexCorrupt)
        #expect(try reader.u64BigEndian("tag") == 0x0102_0304_0506_0708)
        #expect(reader.remaining == 1)
        #expect(throws: VaultFormatError(.indexCorrupt)) { try reader.u64BigEndian("tag") }
        #expect(try reader.u8("value") == 9)
    }

    @Test func sliceReader_readsOnlyItsSlice() throws {
        let bytes: [UInt8] = [9, 9, 1, 2, 9]
        var reader = ByteReader(bytes[2..<4], failure: .recordCorrupt)
        #expect(try reader.u16("value") == 0x0201)
        #expect(throws: VaultFormatError(.recordCorrupt)) { try reader.u8("value") }
    }

    @Test(
        arguments: [
            ([0x00], 0), ([0x01], 1), ([0x7F], 127), ([0x80, 0x01], 128), ([0xFF, 0x7F], 16_383),
            ([0x80, 0x80, 0x01], 16_384), ([0xFF, 0xFF, 0x7F], (1 << 21) - 1),
        ] as [([UInt8], Int)]
    )
    func varint_decodesMinimalEncodings(bytes: [UInt8], value: Int) throws {
        var reader = ByteReader(bytes)
        #expect(try reader.varint("length") == value)
        #expect(reader.isAtEnd)
    }

    // R-ATT-1: a varint that is not minimal is refused.
    @Test(arguments: [[0x80, 0x00], [0xFF, 0x00], [0x80, 0x80, 0x00], [0x81, 0x80, 0x00]] as [[UInt8]])
    func varint_rejectsNonMinimalEncoding(bytes: [UInt8]) {
        var reader = ByteReader(bytes, failure: .recordCorrupt)
        #expect(throws: VaultFormatError(.recordCorrupt)) { try reader.varint("length") }
    }

    // R-ATT-1: a varint longer than 3 bytes is refused.
    @Test(arguments: [[0x80, 0x80, 0x80, 0x01], [0xFF, 0xFF, 0xFF, 0x7F], [0x80, 0x80, 0x80]] as [[UInt8]])
    func varint_rejectsMoreThanThreeBytes(bytes: [UInt8]) {
        var reader = ByteReader(bytes, failure: .recordCorrupt)
        #expect(throws: VaultFormatError(.recordCorrupt)) { try reader.varint("length") }
    }

    @Test func varint_cutShort_throwsTheConfiguredCode() {
        for bytes: [UInt8] in [[], [0x80], [0x80, 0x80]] {
            var reader = ByteReader(bytes, failure: .indexCorrupt)
            #expect(throws: VaultFormatError(.indexCorrupt)) { try reader.varint("length") }
        }
    }

    @Test func varint_writerAndReaderAgreeOnEveryLength() throws {
        var value = 0
        while value < 1 << 21 {
            var writer = ByteWriter()
            writer.varint(value)
            #expect(writer.bytes.count == (value < 128 ? 1 : value < 16_384 ? 2 : 3))
            var reader = ByteReader(writer.bytes)
            #expect(try reader.varint("length") == value)
            value = value < 300 ? value + 1 : value * 3 / 2 + 1
        }
    }
}
