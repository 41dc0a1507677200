// Format-3 files written and read in memory: a full write, in-place commits, a commit cut off by
// a crash, and what a base-key holder can write (Spec/format-v3.md §4, §7, §9, §10; design draft).

import Testing

@testable import VaultFormat

private func event(_ random: some RandomSource, after history: EventHistory? = nil) -> EventHistory {
    let id = EventID.random(avoiding: history, from: random)
    return history.map { $0.recording(id) } ?? EventHistory(first: id)
}

/// A format-3 vault with a master-scope password slot and a base-scope device slot, holding a
/// `whenUnlocked` item and an `always` item.
private struct Fixture {
    let vault = TestVault(seed: "format 3 file")
    let device = TestVault.deviceSecret(seed: "format 3 device")
    let file: [UInt8]
    let secretItem: ItemDraft
    let alwaysItem: ItemDraft

    init() throws {
        secretItem = vault.draft(service: "db", secret: "s3cret")
        alwaysItem = vault.draft(service: "wifi", secret: "open sesame", protection: .always)
        var header = VaultHeader(
            vaultID: vault.vaultID,
            created: TestVault.now,
            generation: 1,
            keyslots: [try vault.passwordSlot(), try vault.deviceSlot(device)]
        )
        header.major = CommitSlot.major
        header.minor = CommitSlot.minor
        file = try Format3Writer.create(
            header: header,
            keys: vault.keys,
            items: [
                Format3Item(draft: secretItem, history: event(vault.random)),
                Format3Item(draft: alwaysItem, history: event(vault.random)),
            ],
            counter: 100,
            random: vault.random
        )
    }

    func ownerOpen(_ file: [UInt8]) throws -> Format3Vault {
        try Format3Vault.open(file, with: .password(TestVault.password))
    }

    /// The owner's in-place commit of a new secret for the `whenUnlocked` item, on the new file:
    /// the owner's open, the item's history before, and the commit.
    func rotateSecretItem(to secret: String, counter: UInt64) throws -> (Format3Vault, EventHistory, Format3Commit) {
        let owner = try ownerOpen(file)
        let (_, _, history) = try owner.item(
            PrimaryKey(itemClass: .genericPassword, attributes: secretItem.attributes)
        )!
        let item = Format3Item(draft: rotated(secretItem, to: secret), history: event(vault.random, after: history))
        let commit = try Format3Writer.commit([.upsert(item)], on: owner, counter: counter, random: vault.random)
        return (owner, history, commit)
    }

    func baseOpen(_ file: [UInt8]) throws -> Format3Vault {
        try Format3Vault.open(file, with: Credentials(deviceSecret: device))
    }
}

private func secret(_ opened: Format3Vault, _ item: ItemDraft) throws -> String? {
    guard let (draft, _, _) = try opened.item(PrimaryKey(itemClass: item.itemClass, attributes: item.attributes))
    else { return nil }
    return draft.secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
}

private func rotated(_ item: ItemDraft, to secret: String) -> ItemDraft {
    ItemDraft(
        id: item.id,
        itemClass: item.itemClass,
        protectionClass: item.protectionClass,
        attributes: item.attributes,
        secret: SecretBytes(utf8: secret)
    )
}

@Suite("Format-3 files")
struct Format3FileTests {
    @Test("a new file opens with either keyslot, each reading what its key reaches")
    func newFileOpens() throws {
        let fixture = try Fixture()
        #expect(fixture.file.prefix(8).elementsEqual(VaultHeader.magic))
        #expect(fixture.file[512..<1_024].allSatisfy { $0 == 0 }, "slot 1 is empty after a full write")
        let owner = try fixture.ownerOpen(fixture.file)
        #expect(owner.header.major == 3 && owner.choice.slot.generation == 1)
        #expect(try secret(owner, fixture.secretItem) == "s3cret")
        #expect(try secret(owner, fixture.alwaysItem) == "open sesame")
        #expect(owner.root.liveBytes == UInt64(fixture.file.count) - CommitSlot.heapStart)
        let base = try fixture.baseOpen(fixture.file)
        #expect(try secret(base, fixture.alwaysItem) == "open sesame")
        #expect(try secret(base, fixture.secretItem) == nil, "a base key does not reach whenUnlocked items")
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try Format3Vault.open(fixture.file, with: .password("wrong"))
        }
    }

    @Test("an in-place commit appends the change, flips the slot and leaves older bytes alone (R3-WR-1)")
    func inPlaceCommit() throws {
        let fixture = try Fixture()
        let (owner, history, commit) = try fixture.rotateSecretItem(to: "rotated", counter: 200)
        #expect(commit.offset == UInt64(fixture.file.count) && commit.slotOffset == 512)
        let after = commit.applied(to: fixture.file)
        #expect(after[..<512] == fixture.file[..<512] && after[1_024..<fixture.file.count] == fixture.file[1_024...])
        let reopened = try fixture.ownerOpen(after)
        #expect(reopened.choice.index == 1 && reopened.choice.slot.generation == 2)
        #expect(!reopened.choice.skippedIncompleteCommit)
        #expect(try secret(reopened, fixture.secretItem) == "rotated")
        #expect(try secret(reopened, fixture.alwaysItem) == "open sesame")
        #expect(try reopened.verifyHeap(fileLength: after.count) == 0)
        #expect(try owner.verifyHeap(fileLength: fixture.file.count) == 0)
        #expect(try reopened.verifyHeap(fileLength: after.count + 7) == 7, "an uncommitted tail is counted")
        let (_, _, newHistory) = try reopened.item(
            PrimaryKey(itemClass: .genericPassword, attributes: fixture.secretItem.attributes)
        )!
        #expect(newHistory.relation(to: history) == .descends)
        #expect(reopened.state(.master).counter == 200 && reopened.state(.base).counter == 100)
        // A commit cut off before all its bytes reached the disk: the old vault, with a note.
        let torn = Array(after.dropLast(10))
        let fallback = try fixture.ownerOpen(torn)
        #expect(fallback.choice.slot.generation == 1 && fallback.choice.skippedIncompleteCommit)
        #expect(try secret(fallback, fixture.secretItem) == "s3cret")
        // The next commit on top of the fallback cuts the torn bytes off and uses slot 1 again.
        let next = try Format3Writer.commit(
            [
                .upsert(
                    Format3Item(
                        draft: rotated(fixture.secretItem, to: "again"),
                        history: event(fixture.vault.random, after: history)
                    )
                )
            ],
            on: fallback,
            counter: 300,
            random: fixture.vault.random
        )
        #expect(next.offset == UInt64(fixture.file.count) && next.slotOffset == 512)
        #expect(try secret(fixture.ownerOpen(next.applied(to: torn)), fixture.secretItem) == "again")
    }

    @Test("a base-key holder writes the base scope; the master scope refuses it (R3-SCP-3)")
    func baseHolderWritesOnlyItsScope() throws {
        let fixture = try Fixture()
        let base = try fixture.baseOpen(fixture.file)
        #expect(throws: VaultFormatError(.keyUnavailable)) {
            try Format3Writer.commit(
                [
                    .upsert(
                        Format3Item(
                            draft: fixture.vault.draft(service: "planted"),
                            history: event(fixture.vault.random)
                        )
                    )
                ],
                on: base,
                counter: 200,
                random: fixture.vault.random
            )
        }
        let commit = try Format3Writer.commit(
            [
                .upsert(
                    Format3Item(
                        draft: rotated(fixture.alwaysItem, to: "new wifi"),
                        history: event(fixture.vault.random)
                    )
                )
            ],
            on: base,
            counter: 200,
            random: fixture.vault.random
        )
        let owner = try fixture.ownerOpen(commit.applied(to: fixture.file))
        #expect(try secret(owner, fixture.alwaysItem) == "new wifi")
        #expect(try secret(owner, fixture.secretItem) == "s3cret")
    }

    /// The attack of issue 21: a holder without the master key puts back an older record of a
    /// master-scope item in a new generation. It must re-seal the root, so it can only carry the
    /// master scope's state over, or present an older one whole; a single older record is damage.
    @Test("a base-key holder cannot put back one older master-scope record")
    func olderRecordCannotBePutBack() throws {
        let fixture = try Fixture()
        let (owner, history, commit) = try fixture.rotateSecretItem(to: "rotated", counter: 200)
        let rotatedFile = commit.applied(to: fixture.file)
        // The attacker's commit: the master scope's tree from generation 2 with its leaf pointing
        // at the old record, which needs a new leaf, a new top and so a new tag it cannot compute.
        let base = try fixture.baseOpen(rotatedFile)
        let masterEntries = try base.entries(of: .master)
        guard case .live(var leafEntry) = masterEntries.first else {
            Issue.record("the master scope is empty")
            return
        }
        let oldOffset = try fixture.ownerOpen(fixture.file).entries(of: .master).compactMap { entry -> UInt64? in
            if case .live(let live) = entry { return live.recordOffset }
            return nil
        }.first!
        leafEntry.recordOffset = oldOffset
        leafEntry.history = history
        var heap = base.heap
        let forgedTop = try base.tree(.master).applying(
            [leafEntry.key: .live(leafEntry)],
            to: base.state(.master).tree,
            in: &heap,
            random: fixture.vault.random
        ).top
        var forged = base.root
        forged.scopes[0].tree = forgedTop
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try forged.verifyTags(
                keys: owner.keys,
                vaultID: fixture.vault.vaultID,
                groupsHash: Format3Vault.groupsHash(of: owner.header)
            )
        }
        #expect(throws: Never.self, "the base holder's own check cannot see it") {
            try forged.verifyTags(keys: base.keys, vaultID: fixture.vault.vaultID, groupsHash: [])
        }
    }
}
