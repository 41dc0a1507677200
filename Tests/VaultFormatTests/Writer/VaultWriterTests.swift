// vault: writing generations (Spec section 10.2, R-IDX-5, R-DEL-*, R-FLD-3, R-FLD-5, R-REC-3, R-KS-5, R-KS-6).

import Testing

@testable import VaultFormat

@Suite("Writing vaults")
struct VaultWriterTests {
    private let vault = TestVault(seed: "writer")
    private static let day: Int64 = 24 * 3600 * 1000

    /// The next generation of `file`, edited by `body`.
    private func rewrite(
        _ file: [UInt8],
        now: Int64 = TestVault.now,
        _ body: (inout VaultWriter) throws -> Void = { _ in }
    ) throws -> [UInt8] {
        var writer = try VaultWriter(updating: TestVault.open(file))
        try body(&writer)
        return try writer.encode(now: now, random: vault.random)
    }

    private func recordBytes(_ snapshot: VaultSnapshot) throws -> [ItemID: [UInt8]] {
        var out: [ItemID: [UInt8]] = [:]
        for (position, entry) in try snapshot.index.entries.enumerated() {
            out[entry.itemID] = Array(try snapshot.recordBytes(at: position))
        }
        return out
    }

    // R-IDX-5
    @Test func put_withDuplicatePrimaryKey_throwsInvalidParameter() throws {
        var writer = try vault.writer()
        let first = vault.draft(service: "mail", account: "alice")
        try writer.put(first, random: vault.random)
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try writer.put(vault.draft(service: "mail", account: "alice", secret: "other"), random: vault.random)
        }
        // The same item may be replaced, and another account is another item.
        var replacement = first
        replacement.secret = SecretBytes(utf8: "new")
        try writer.put(replacement, random: vault.random)
        try writer.put(vault.draft(service: "mail", account: "bob"), random: vault.random)
        #expect(writer.count == 2)
    }

    // R-DEL-1
    @Test func remove_leavesADeletionRecord() throws {
        let keep = vault.draft(service: "keep")
        let gone = vault.draft(service: "gone")
        let file = try vault.file(items: [keep, gone])
        let next = try rewrite(file) { writer in
            let removed = try writer.remove(gone.id, now: TestVault.now + 5)
            let removedAgain = try writer.remove(gone.id, now: TestVault.now + 6)
            #expect(removed && !removedAgain)
        }
        let snapshot = try TestVault.open(next)
        #expect(try snapshot.index.entries.map(\.itemID) == [keep.id])
        #expect(try snapshot.index.deletions == [DeletionRecord(itemID: gone.id, deletedAt: TestVault.now + 5)])
        #expect(snapshot.header.deletionCount == 1)
    }

    // R-DEL-2: records older than 90 days are dropped; one exactly 90 days old is kept.
    @Test func encode_dropsDeletionRecordsOlderThan90Days() throws {
        let items = (0..<3).map { vault.draft(service: "item \($0)") }
        var writer = try vault.writer()
        for item in items { try writer.put(item, random: vault.random) }
        let now = TestVault.now
        try writer.remove(items[0].id, now: now - 90 * Self.day - 1)
        try writer.remove(items[1].id, now: now - 90 * Self.day)
        try writer.remove(items[2].id, now: now - 1)
        let snapshot = try TestVault.open(writer.encode(now: now, random: vault.random))
        #expect(try Set(snapshot.index.deletions.map(\.itemID)) == [items[1].id, items[2].id])
        // The next write a day later drops the one that is now too old.
        let later = try TestVault.open(try rewrite(writer.encode(now: now, random: vault.random), now: now + Self.day))
        #expect(try later.index.deletions.map(\.itemID) == [items[2].id])
    }

    // R-DEL-3
    @Test func put_ofDeletedID_removesItsDeletionRecord() throws {
        let item = vault.draft(service: "back")
        var writer = try vault.writer()
        try writer.put(item, random: vault.random)
        try writer.remove(item.id, now: TestVault.now)
        try writer.put(item, random: vault.random)
        let snapshot = try TestVault.open(writer.encode(now: TestVault.now, random: vault.random))
        #expect(try snapshot.index.deletions.isEmpty)
        #expect(try snapshot.index.entries.map(\.itemID) == [item.id])
    }

    // R-FLD-5, R-REC-3: generation rises by one per write, and rewritten records carry it as their version.
    @Test func generation_risesByOnePerWrite() throws {
        let item = vault.draft(service: "counter")
        var file = try vault.file(items: [item])
        for expected in 1...4 {
            let snapshot = try TestVault.open(file)
            #expect(snapshot.header.generation == UInt64(expected))
            #expect(try snapshot.index.entries.map(\.version) == [UInt64(expected)])
            file = try rewrite(file) { writer in
                #expect(writer.header.generation == UInt64(expected + 1))
                try writer.put(item, random: vault.random)
            }
        }
    }

    // R-REC-3: untouched records are copied byte for byte with their entries; rewritten ones get a fresh nonce.
    @Test func rewrite_copiesUntouchedRecordsByteForByte() throws {
        let touched = vault.draft(service: "touched")
        let untouched = (0..<3).map { vault.draft(service: "untouched \($0)") }
        let gen1File = try vault.file(items: [touched] + untouched)
        let before = try recordBytes(try TestVault.open(gen1File))
        let after = try TestVault.open(try rewrite(gen1File) { try $0.put(touched, random: vault.random) })
        let afterBytes = try recordBytes(after)
        for item in untouched {
            #expect(afterBytes[item.id] == before[item.id])
            #expect(try after.index.entries.first { $0.itemID == item.id }?.version == 1)
        }
        let old = try #require(before[touched.id])
        let new = try #require(afterBytes[touched.id])
        #expect(old.prefix(24) != new.prefix(24))  // fresh nonce
        #expect(try after.index.entries.first { $0.itemID == touched.id }?.version == 2)
    }

    // R-KS-5: changing keyslots keeps the master key, the index plaintext and every record.
    @Test func setKeyslots_leavesIndexEntriesAndRecordsUnchanged() throws {
        let file = try vault.file(items: (0..<4).map { vault.draft(service: "item \($0)") })
        let before = try TestVault.open(file)
        let newSlot = try vault.passwordSlot("new password")
        let next = try rewrite(file) { try $0.setKeyslots([newSlot]) }
        #expect(throws: VaultFormatError(.wrongCredential)) { try TestVault.open(next) }
        let after = try TestVault.open(next, password: "new password")
        #expect(after.header.generation == before.header.generation + 1)
        #expect(after.header.keyslots == [newSlot])
        #expect(try after.index.entries == before.index.entries)
        #expect(try after.index.deletions == before.index.deletions)
        #expect(Array(next[after.recordsOffset...]) == Array(file[before.recordsOffset...]))
        #expect(try after.items(includeSecrets: true).count == 4)
    }

    // R-KS-6
    @Test func keyslots_mustNumberOneTo32() throws {
        #expect(throws: VaultFormatError(.invalidParameter)) { try vault.writer(slots: []) }
        let slot = try vault.keyFileSlot([1])
        #expect(throws: Never.self) { try vault.writer(slots: Array(repeating: slot, count: 32)) }
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try vault.writer(slots: Array(repeating: slot, count: 33))
        }
        var writer = try vault.writer()
        #expect(throws: VaultFormatError(.invalidParameter)) { try writer.setKeyslots([]) }
    }

    // R-FLD-3: unknown non-critical fields survive a rewrite unchanged, in order, after the known fields.
    @Test func rewrite_keepsUnknownNonCriticalFieldsInOrder() throws {
        let unknown = [VaultHeader.UnknownField(type: 0x0042, value: [1, 2]), .init(type: 0x0007, value: [])]
        var writer = try vault.writer()
        writer.setUnknownFields(unknown)
        let next = try rewrite(writer.encode(now: TestVault.now, random: vault.random))
        let fields = try EditableHeader(next).fields
        #expect(fields.suffix(2).map(\.type) == [0x0042, 0x0007])
        #expect(fields.suffix(2).map(\.value) == [[1, 2], []])
        #expect(
            fields.dropLast(2).map(\.type) == [
                Field.vaultID, Field.created, Field.generation, Field.keyslot, Field.index,
            ]
        )
    }
}
