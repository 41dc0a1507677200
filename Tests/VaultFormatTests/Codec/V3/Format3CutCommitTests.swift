// Format 3 against an attacker without keys who cuts off the newest commit by overwriting its slot
// (security review of format 3; Spec/format-v3.md R3-SLT-4, threat model 3.15).

import Testing

@testable import VaultFormat

@Suite("Format 3: a newest commit cut off without keys")
struct Format3CutCommitTests {
    static func choose(_ file: [UInt8]) throws -> SlotChoice {
        try SlotChoice.choose(prefix: file.prefix(1_024), fileLength: UInt64(file.count)) { range in
            BLAKE2b.hash(Array(file[Int(range.lowerBound)..<Int(range.upperBound)]), length: 32)
        }
    }

    /// Threat model 3.15: a keyless attacker "can cut a commit off, which makes readers fall back
    /// one commit with a note". Zeroing the newest slot (512 bytes, no key, no older copy), or
    /// writing there a slot of any other vault (or an older commit) of a lower generation, made
    /// readers fall back with no note, `verify` ok: the newest write silently gone.
    @Test("a zeroed or replaced newest slot of an in-place commit is noted (R3-SLT-4)")
    func cutCommitIsNoted() throws {
        let fixture = try Format3Fixture()
        let commit = try fixture.commit(on: fixture.file) { writer in
            try writer.put(rotated(fixture.secretItem, to: "rotated"), random: fixture.vault.random)
        }
        let second = commit.applied(to: fixture.file)
        let third = try fixture.commit(on: second) { writer in
            try writer.put(rotated(fixture.secretItem, to: "rotated again"), random: fixture.vault.random)
        }
        .applied(to: second)
        let intact = try Self.choose(third)
        #expect(intact.slot.generation == 3 && !intact.skippedIncompleteCommit)
        let newest = intact.index * CommitSlot.byteCount
        // Another vault's newly written file: its slot 0, generation 1, is complete in any file.
        let otherVault = TestVault(seed: "another vault")
        var otherWriter = try otherVault.writer(slots: [try otherVault.passwordSlot()])
        try otherWriter.upgradeToVersion3()
        let other = try otherWriter.encode(now: TestVault.now, random: otherVault.random)

        var zeroed = third
        zeroed.replaceSubrange(newest..<newest + CommitSlot.byteCount, with: [UInt8](repeating: 0, count: 512))
        var foreign = third
        foreign.replaceSubrange(newest..<newest + CommitSlot.byteCount, with: other[newest..<newest + 512])
        for file in [zeroed, foreign] {
            let choice = try Self.choose(file)
            #expect(choice.slot.generation == 2)
            #expect(choice.skippedIncompleteCommit, "the fall-back to generation 2 is noted")
            let owner = try fixture.owner(file)
            #expect(owner.skippedIncompleteCommit)
            #expect(try secret(owner, fixture.secretItem) == "rotated")
        }
        // What is left is the file as it was before the newest commit, with no note.
        #expect(!(try fixture.owner(second)).skippedIncompleteCommit)
        #expect(!(try fixture.owner(third)).skippedIncompleteCommit)
        // A full rewrite has no commit in its other slot: an empty slot 1 is not noted.
        #expect(!(try Self.choose(fixture.file)).skippedIncompleteCommit)
        #expect(!(try fixture.owner(fixture.file)).skippedIncompleteCommit)
        // A crash between the append and the slot write leaves the other slot whole: no note.
        let torn = Array(second.prefix(Int(intact.slot.committedLength))) + [UInt8](repeating: 7, count: 100)
        #expect(!(try Self.choose(torn)).skippedIncompleteCommit)
        #expect(!(try fixture.owner(torn)).skippedIncompleteCommit)
        // A damaged byte in the commit before the newest is damage of what it holds, not a cut:
        // its slot still ends where the newest commit starts, and carries a MAC under HK.
        var damaged = third
        damaged[Int(try Self.choose(second).slot.commitStart)] ^= 0x01
        #expect(!(try Self.choose(damaged)).skippedIncompleteCommit)
        #expect(!(try fixture.owner(damaged)).skippedIncompleteCommit)
        #expect(try secret(fixture.owner(damaged), fixture.secretItem) == "rotated again")
    }

    /// Every field of a slot but its MAC is computed without a key: in place of the newest slot, a
    /// keyless attacker writes a well-formed, complete slot of generation 1 that ends where
    /// generation 2 starts, which the checks made without a key take for the commit generation 2
    /// was built on. Its MAC, checked once `HK` is known, gives it away.
    @Test("a forged slot in place of the newest one is noted once HK is known (R3-SLT-4)")
    func forgedPredecessorIsNoted() throws {
        let fixture = try Format3Fixture()
        let second = try fixture.commit(on: fixture.file) { writer in
            try writer.put(rotated(fixture.secretItem, to: "rotated"), random: fixture.vault.random)
        }
        .applied(to: fixture.file)
        let third = try fixture.commit(on: second) { writer in
            try writer.put(rotated(fixture.secretItem, to: "rotated again"), random: fixture.vault.random)
        }
        .applied(to: second)
        let intact = try Self.choose(third)
        let kept = try Self.choose(second)
        let newest = intact.index * CommitSlot.byteCount
        let forgedSlot = CommitSlot(
            index: UInt8(intact.index),
            generation: 1,
            commitStart: kept.slot.commitStart,
            committedLength: kept.slot.commitStart,
            commitHash: BLAKE2b.hash([], length: 32),
            header: kept.slot.header,
            root: kept.slot.root
        )
        .encoded { _ in [UInt8](repeating: 0xA5, count: 32) }
        var forged = third
        forged.replaceSubrange(newest..<newest + CommitSlot.byteCount, with: forgedSlot)

        let choice = try Self.choose(forged)
        #expect(choice.slot.generation == 2)
        #expect(!choice.skippedIncompleteCommit, "without a key the forged slot passes for generation 1's")
        let owner = try fixture.owner(forged)
        #expect(owner.skippedIncompleteCommit, "its MAC does not verify under HK")
        #expect(try secret(owner, fixture.secretItem) == "rotated")
        #expect(try fixture.base(forged).skippedIncompleteCommit, "a holder of BK alone notes it too")
    }
}
