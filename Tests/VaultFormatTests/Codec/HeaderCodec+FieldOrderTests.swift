// vault: header field order, records length and check order (R-FLD-7, R-FLD-8, R-FILE-2).

import Testing

@testable import VaultFormat

@Suite("Field order and check order")
struct FieldOrderTests {
    private let vault = TestVault(seed: "field-order")

    /// R-FLD-7: a reader accepts the fields in any order, interleaved with unknown ones.
    @Test func fieldsInAnyOrder_withUnknownFieldsInterleaved_open() throws {
        let file = try vault.file(items: [vault.draft(service: "order")])
        let snapshot = try TestVault.open(file)
        var header = try EditableHeader(file)
        header.fields.reverse()
        header.fields.insert((type: 0x0777, value: [1, 2, 3]), at: 2)
        let reordered = try header.resealedFile(keys: snapshot.keys)
        let opened = try TestVault.open(reordered)
        #expect(opened.header.unknownFields.map(\.type) == [0x0777])
        #expect(try opened.secret(at: 0).copyBytes() == Array("hunter2".utf8))
    }

    /// R-FLD-7: a writer emits vaultID, created, generation, keyslots, index, then unknown fields.
    @Test func writerEmitsFieldsInTheSpecifiedOrder() throws {
        var writer = try vault.writer(slots: [try vault.passwordSlot(), try vault.keyFileSlot([9, 9])])
        writer.setUnknownFields([VaultHeader.UnknownField(type: 0x0101, value: [7])])
        let header = try EditableHeader(writer.encode(now: TestVault.now, random: vault.random))
        #expect(header.fields.map(\.type) == [0x8001, 0x8002, 0x8003, 0x8004, 0x8004, 0x8005, 0x0101])
    }

    /// R-FLD-8: a records length above 2^62 − 1 is `structure`, not `truncated`.
    @Test func recordsLengthAbove2To62_isStructure() throws {
        var header = try EditableHeader(try vault.file())
        var index = header.values(0x8005)[0]
        index.replaceSubrange(32..<40, with: [UInt8].le(UInt64(1) << 62))
        header.replace(0x8005, with: index)
        let file = header.file()
        #expect(throws: VaultFormatError(.structure)) {
            try VaultHeader.decode(Array(file[..<(file.count - header.body.count)]), fileLength: file.count)
        }
    }

    /// R-FILE-2: with a damaged checksum and a missing last byte, the checksum (step 2) is reported
    /// before the file length (step 3).
    @Test func twoFaults_reportTheFirstInReadingOrder() throws {
        var file = try vault.file(items: [vault.draft(service: "two-faults")])
        file[20] ^= 1
        file.removeLast()
        #expect(throws: VaultFormatError(.headerCorrupt)) { try TestVault.open(file) }
    }
}
