// vault: header decoding rules (Spec section 4, R-HDR-*, R-FLD-*, R-FILE-1).

import Testing

@testable import VaultFormat

@Suite("Header decoding")
struct HeaderDecodeTests {
    private let vault = TestVault(seed: "header-decode")
    private let file: [UInt8]

    init() throws {
        file = try vault.file(items: [vault.draft(service: "mail")])
    }

    private func expectOpen(_ bytes: [UInt8], throws code: VaultFormatError.Code) {
        #expect(throws: VaultFormatError(code)) { try TestVault.open(bytes) }
    }

    @Test func unmodifiedFile_opens() throws {
        let snapshot = try TestVault.open(file)
        #expect(snapshot.header.generation == 1)
        #expect(snapshot.header.recordCount == 1)
    }

    // R-HDR-1
    @Test(arguments: 0..<8)
    func decode_withBadMagicByte_throwsNotAVault(index: Int) {
        var bytes = file
        bytes[index] ^= 0x20
        expectOpen(bytes, throws: .notAVault)
    }

    // R-HDR-1: empty files, and short files whose bytes differ from the magic.
    @Test func decode_emptyOrForeignShortFile_throwsNotAVault() {
        expectOpen([], throws: .notAVault)
        expectOpen(Array("hello".utf8), throws: .notAVault)
        expectOpen([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], throws: .notAVault)  // PNG
    }

    // R-HDR-1: a proper prefix of a vault preamble is a cut-off vault, not a foreign file.
    @Test func decode_withMagicPrefixShorterThanPreamble_throwsTruncated() {
        for count in [1, 5, 8, 15] {
            expectOpen(Array(file.prefix(count)), throws: .truncated)
        }
    }

    // R-HDR-1: a PNG file is cleanly rejected, not parsed.
    @Test func decode_foreignFileWithLongContent_throwsNotAVault() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0x42, count: 200)
        expectOpen(png, throws: .notAVault)
    }

    // R-HDR-2 (also before the checksum: the major is checked right after the magic)
    @Test(arguments: [UInt16(0), 3, 0xFFFF])  // 1 and 2 (format 2.0, R2-VER-1) are known
    func decode_withOtherMajorVersion_throwsUnsupportedVersion(major: UInt16) throws {
        var header = try EditableHeader(file)
        header.major = major
        expectOpen(header.file(), throws: .unsupportedVersion)
        var damaged = file
        damaged[8] = UInt8(truncatingIfNeeded: major == 0 ? 3 : major)
        expectOpen(damaged, throws: .unsupportedVersion)
    }

    /// R2-VER-3: a reader that knows major 2 reads a 1.x file whose major byte alone was changed
    /// to 2 as a damaged header: the checksum (R-HDR-5) no longer matches.
    @Test func decode_withMajorChangedTo2_throwsHeaderCorrupt() {
        var damaged = file
        damaged[8] = 2
        expectOpen(damaged, throws: .headerCorrupt)
    }

    // R-HDR-4
    @Test(arguments: [UInt32(0), 64, 79, 1_048_577, UInt32.max])
    func decode_withHeaderLengthOutOfRange_throwsStructure(length: UInt32) {
        var bytes = file
        bytes.replaceSubrange(12..<16, with: [UInt8].le(length))
        expectOpen(bytes, throws: .structure)
    }

    // R-HDR-4: a header length that passes the end of the file means the file ends inside the header.
    @Test func decode_withHeaderLongerThanFile_throwsTruncated() throws {
        let header = try EditableHeader(file)
        expectOpen(Array(file.prefix(header.original.count - 1)), throws: .truncated)
        expectOpen(Array(file.prefix(40)), throws: .truncated)
    }

    // R-HDR-5
    @Test func decode_withChecksumMismatch_throwsHeaderCorrupt() throws {
        let length = try EditableHeader(file).original.count
        for index in [20, 30, length - 65, length - 64, length - 33] {  // fields, and the checksum itself
            var bytes = file
            bytes[index] ^= 0x01
            expectOpen(bytes, throws: .headerCorrupt)
        }
    }

    // R-HDR-5: damage to a keyslot reads "header is damaged", not "wrong password" (Rationale 11.1).
    @Test func decode_withDamagedKeyslot_throwsHeaderCorruptNotWrongCredential() throws {
        let header = try EditableHeader(file)
        let slot = try #require(header.values(Field.keyslot).first)
        let start = try #require(file.indices.first { file[$0..<($0 + slot.count)].elementsEqual(slot) })
        var bytes = file
        bytes[start + slot.count - 1] ^= 0x01  // last byte of the wrapped key
        expectOpen(bytes, throws: .headerCorrupt)
    }

    // R-FLD-2
    @Test(arguments: [UInt16(0x8000), 0x8006, 0xFFFF])
    func decode_withUnknownCriticalField_throwsUnsupportedFeature(type: UInt16) throws {
        var header = try EditableHeader(file)
        header.fields.append((type, [1, 2, 3]))
        expectOpen(header.file(), throws: .unsupportedFeature)
    }

    // R-FLD-3: an unknown non-critical field is ignored by the reader.
    @Test func decode_withUnknownNonCriticalField_keepsIt() throws {
        var header = try EditableHeader(file)
        header.fields.insert((0x0042, [9, 8, 7]), at: 1)
        let edited = try header.resealedFile(keys: vault.keys)
        let snapshot = try TestVault.open(edited)
        #expect(snapshot.header.unknownFields == [VaultHeader.UnknownField(type: 0x0042, value: [9, 8, 7])])
        #expect(snapshot.header.vaultID == vault.vaultID)
        #expect(try snapshot.items(includeSecrets: true).count == 1)
    }

    // R-FLD-4
    @Test(arguments: [Field.vaultID, Field.created, Field.generation, Field.index])
    func decode_withDuplicateSingleton_throwsStructure(type: UInt16) throws {
        var header = try EditableHeader(file)
        let value = try #require(header.values(type).first)
        header.fields.append((type, value))
        expectOpen(header.file(), throws: .structure)
    }

    // R-FLD-4
    @Test(arguments: [Field.vaultID, Field.created, Field.generation, Field.keyslot, Field.index])
    func decode_withMissingRequiredField_throwsStructure(type: UInt16) throws {
        var header = try EditableHeader(file)
        header.fields.removeAll { $0.type == type }
        expectOpen(header.file(), throws: .structure)
    }

    // R-FLD-4
    @Test(arguments: [Field.vaultID, Field.created, Field.generation, Field.index])
    func decode_withKnownFieldOfWrongLength_throwsStructure(type: UInt16) throws {
        var header = try EditableHeader(file)
        header.replace(type, with: header.values(type)[0] + [0])
        expectOpen(header.file(), throws: .structure)
    }

    // R-FLD-1: a field whose length runs past the fields area.
    @Test func decode_withOverrunningField_throwsStructure() throws {
        var bytes = file
        bytes.replaceSubrange(18..<22, with: [UInt8].le(UInt32(1000)))  // the first field's length
        let length = try EditableHeader(file).original.count
        bytes.replaceSubrange((length - 64)..<(length - 32), with: BLAKE2b.hash(bytes[..<(length - 64)], length: 32))
        expectOpen(bytes, throws: .structure)
    }

    // R-FLD-5
    @Test func decode_withGenerationZero_throwsStructure() throws {
        var header = try EditableHeader(file)
        header.replace(Field.generation, with: [UInt8].le(UInt64(0)))
        expectOpen(header.file(), throws: .structure)
    }

    // R-FLD-6
    @Test func decode_withTooManyRecordsOrDeletions_throwsLimit() throws {
        for offset in [24, 28] {  // recordCount, deletionCount inside the index field
            var header = try EditableHeader(file)
            var index = header.values(Field.index)[0]
            index.replaceSubrange(offset..<(offset + 4), with: [UInt8].le(UInt32(1_000_001)))
            header.replace(Field.index, with: index)
            expectOpen(header.file(), throws: .limit)
        }
    }

    // R-FILE-1
    @Test func decode_withTrailingData_throwsStructure() {
        expectOpen(file + [0], throws: .structure)
    }

    // R-FILE-1
    @Test func decode_withFileEndingInIndexOrRecords_throwsTruncated() throws {
        let headerLength = try EditableHeader(file).original.count
        for cut in [1, 16, file.count - headerLength - 1] {
            expectOpen(Array(file.dropLast(cut)), throws: .truncated)
        }
    }

    // R-HDR-6: a field edited with the checksum fixed is caught by the MAC once a keyslot opens.
    @Test func open_withEditedFieldAndRecomputedChecksum_throwsHeaderAuthentication() throws {
        var header = try EditableHeader(file)
        header.replace(Field.created, with: [UInt8].le(Int64(42)))
        #expect(throws: Never.self) { try VaultHeader.decode(header.original, fileLength: file.count) }
        expectOpen(header.file(), throws: .headerAuthentication)
        // With the wrong password the same file cannot get past the keyslots.
        #expect(throws: VaultFormatError(.wrongCredential)) { try TestVault.open(header.file(), password: "nope") }
    }

    // R-HDR-3: a newer minor version opens, but is read-only (R-HDR-7: never rewritten).
    @Test func open_withNewerMinorVersion_isReadOnly() throws {
        var header = try EditableHeader(file)
        header.minor = VaultHeader.currentMinor + 1
        let newer = try header.resealedFile(keys: vault.keys)
        let snapshot = try TestVault.open(newer)
        #expect(snapshot.header.minor == VaultHeader.currentMinor + 1)
        #expect(!snapshot.header.isWritable)
        #expect(try snapshot.items(includeSecrets: true).count == 1)
        #expect(throws: VaultFormatError(.unsupportedVersion)) { try VaultWriter(updating: snapshot) }
    }
}
