// Format-3 commit slots and the choice of the current one (Spec/format-v3.md §4; design draft).

import Testing

@testable import VaultFormat

/// A stand-in for the MAC under `HK`: keyed BLAKE2b under a fixed key.
private func fakeMAC(_ bytes: [UInt8]) -> [UInt8] {
    BLAKE2b.hash(bytes, key: [UInt8](repeating: 9, count: 32), length: 32)
}

private func reference(_ offset: UInt64) -> ChunkReference {
    ChunkReference(offset: offset, length: 8, hash: [UInt8](repeating: 1, count: 32))
}

/// A slot whose commit is `file[start..<end]`.
private func slot(_ generation: UInt64, _ range: Range<UInt64>, in file: [UInt8], index: UInt8 = 0) -> CommitSlot {
    CommitSlot(
        index: index,
        generation: generation,
        commitStart: range.lowerBound,
        committedLength: range.upperBound,
        commitHash: BLAKE2b.hash(file[Int(range.lowerBound)..<Int(range.upperBound)], length: 32),
        header: reference(CommitSlot.heapStart),
        root: reference(CommitSlot.heapStart + 8)
    )
}

private func choose(_ file: [UInt8]) throws -> SlotChoice {
    try SlotChoice.choose(prefix: file.prefix(1_024), fileLength: UInt64(file.count)) { range in
        BLAKE2b.hash(file[Int(range.lowerBound)..<Int(range.upperBound)], length: 32)
    }
}

/// A file after a full rewrite (slot 1 empty) and one in-place commit on top of it.
private func twoCommits() -> (fresh: [UInt8], committed: [UInt8]) {
    var file = [UInt8](repeating: 0, count: 1_024) + [UInt8](repeating: 0xA1, count: 100)
    let first = slot(1, 1_124..<1_124, in: file)
    file.replaceSubrange(0..<512, with: first.encoded(mac: fakeMAC))
    let fresh = file
    file += [UInt8](repeating: 0xB2, count: 60)
    let second = slot(2, 1_124..<1_184, in: file, index: 1)
    file.replaceSubrange(512..<1_024, with: second.encoded(mac: fakeMAC))
    return (fresh, file)
}

@Suite("Format-3 commit slots")
struct CommitSlotTests {
    @Test("a slot round-trips and its MAC covers its first 480 bytes")
    func slotRoundTrips() {
        let file = [UInt8](repeating: 5, count: 2_000)
        let original = slot(7, 1_024..<2_000, in: file)
        let bytes = original.encoded(mac: fakeMAC)
        #expect(bytes.count == 512)
        #expect(Array(bytes[480...]) == fakeMAC(Array(bytes[..<480])))
        #expect(CommitSlot.read(bytes[...], at: 0) == .wellFormed(original, bytes: bytes))
        #expect(CommitSlot.read([UInt8](repeating: 0, count: 512)[...], at: 0) == .empty)
    }

    @Test("a reader takes the newer complete slot, and the fresh file's only one (R3-SLT-3, R3-SLT-4)")
    func newestCompleteSlotWins() throws {
        let (fresh, committed) = twoCommits()
        let first = try choose(fresh)
        #expect(first.index == 0 && first.slot.generation == 1 && !first.skippedIncompleteCommit)
        let second = try choose(committed)
        #expect(second.index == 1 && second.slot.generation == 2 && !second.skippedIncompleteCommit)
        #expect(second.bytes == Array(committed[512..<1_024]))
    }

    @Test("an open hashes the newer commit, and the older one only when the newer does not decide (R3-SLT-4)")
    func olderCommitIsHashedOnlyWhenNeeded() throws {
        // Slot 1 holds generation 2 (bytes 1_124..<1_184), slot 0 generation 3 (1_184..<1_200).
        var (_, file) = twoCommits()
        file += [UInt8](repeating: 0xC3, count: 16)
        file.replaceSubrange(0..<512, with: slot(3, 1_184..<1_200, in: file).encoded(mac: fakeMAC))
        func chooseRecording(_ file: [UInt8]) throws -> (SlotChoice, [Range<UInt64>]) {
            var hashed: [Range<UInt64>] = []
            let choice = try SlotChoice.choose(prefix: file.prefix(1_024), fileLength: UInt64(file.count)) { range in
                hashed.append(range)
                return BLAKE2b.hash(file[Int(range.lowerBound)..<Int(range.upperBound)], length: 32)
            }
            return (choice, hashed)
        }
        let (current, hashed) = try chooseRecording(file)
        #expect(current.index == 0 && current.slot.generation == 3 && !current.skippedIncompleteCommit)
        #expect(hashed == [1_184..<1_200], "generation 2 cannot be current: not hashed")
        // The newer commit damaged: the older one is hashed and taken, with the note.
        var torn = file
        torn[1_190] ^= 0xFF
        let (fallback, both) = try chooseRecording(torn)
        #expect(fallback.index == 1 && fallback.slot.generation == 2 && fallback.skippedIncompleteCommit)
        #expect(both == [1_184..<1_200, 1_124..<1_184])
        // Equal generations: both are hashed, and both complete is `structure`.
        var tie = file
        tie.replaceSubrange(512..<1_024, with: slot(3, 1_124..<1_184, in: file, index: 1).encoded(mac: fakeMAC))
        #expect(throws: VaultFormatError(.structure)) { try choose(tie) }
    }

    @Test("a commit whose bytes did not all reach the file is skipped, with a note (R3-SLT-4)")
    func incompleteCommitFallsBack() throws {
        let (_, committed) = twoCommits()
        var torn = committed
        torn[1_150] ^= 0xFF
        var tornSlot = committed
        tornSlot[600] ^= 0x01
        let cut = Array(committed.prefix(1_150))
        for (what, file) in [("a changed byte", torn), ("a torn slot", tornSlot), ("a cut file", cut)] {
            let choice = try choose(file)
            #expect(choice.index == 0 && choice.slot.generation == 1, "\(what)")
            #expect(choice.skippedIncompleteCommit, "\(what)")
        }
        // A zeroed first slot: the file is still a vault, the second slot opens, and the damaged
        // slot is noted (it may have held a newer commit, torn while it was written).
        var zeroedFirst = committed
        zeroedFirst.replaceSubrange(0..<512, with: [UInt8](repeating: 0, count: 512))
        let second = try choose(zeroedFirst)
        #expect(second.index == 1 && second.skippedIncompleteCommit)
        // Bytes after the last commit are the uncommitted tail, and change nothing.
        let tail = try choose(committed + [1, 2, 3])
        #expect(tail.index == 1 && !tail.skippedIncompleteCommit)
    }

    @Test("files no slot can open give the errors of R3-SLT-1 and R3-SLT-4")
    func unusableFilesAreRefused() {
        let (fresh, committed) = twoCommits()
        var noneComplete = fresh
        noneComplete[10] ^= 0x01
        var equal = committed
        let again = slot(1, 1_124..<1_184, in: committed, index: 1)
        equal.replaceSubrange(512..<1_024, with: again.encoded(mac: fakeMAC))
        var cases: [(String, [UInt8], VaultFormatError.Code)] = [
            ("an empty file", [], .notAVault),
            ("another file", Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0, count: 2_000), .notAVault),
            ("a cut-off slot area", Array(fresh.prefix(700)), .truncated),
            ("the only slot damaged", noneComplete, .headerCorrupt),
            ("the only slot's commit cut off", Array(fresh.prefix(1_100)), .truncated),
            ("two complete slots of one generation", equal, .structure),
        ]
        var emptyFresh = fresh
        emptyFresh.replaceSubrange(0..<512, with: [UInt8](repeating: 0, count: 512))
        cases.append(("a zeroed first slot and an empty second", emptyFresh, .notAVault))
        for (what, file, code) in cases {
            #expect(throws: VaultFormatError(code), "\(what)") { try choose(file) }
        }
    }

    @Test("reserved bytes must be zero in a 3.0 slot, and are a later minor's to use (R3-SLT-2)")
    func reservedBytes() {
        let file = [UInt8](repeating: 5, count: 1_100)
        var original = slot(1, 1_024..<1_100, in: file)
        var bytes = original.encoded(mac: fakeMAC)
        bytes[200] = 1
        bytes.replaceSubrange(448..<480, with: BLAKE2b.hash(bytes[..<448], length: 32))
        #expect(CommitSlot.read(bytes[...], at: 0) == .damaged(reason: "its reserved bytes are not zero"))
        original.minor = 1
        bytes = original.encoded(mac: fakeMAC)
        bytes[200] = 1
        bytes.replaceSubrange(448..<480, with: BLAKE2b.hash(bytes[..<448], length: 32))
        guard case .wellFormed(let read, _) = CommitSlot.read(bytes[...], at: 0) else {
            Issue.record("a 3.1 slot with reserved bytes set reads as damaged")
            return
        }
        #expect(read.minor == 1)
    }
}
