// Format-3 vaults written by VaultWriter and read by VaultSnapshot: a full write, in-place
// commits, a commit cut off by a crash, histories, deletions, migration, and what a base-key
// holder can write (Spec/format-v3.md §4, §7, §8, §9, §10, §11).

import Testing

@testable import VaultFormat

/// A format-3 vault with a master-scope password slot and a base-scope device slot, holding a
/// `whenUnlocked` item and an `always` item.
struct Format3Fixture {
    let vault = TestVault(seed: "format 3 file")
    let device = TestVault.deviceSecret(seed: "format 3 device")
    let file: [UInt8]
    let secretItem: ItemDraft
    let alwaysItem: ItemDraft

    init() throws {
        secretItem = vault.draft(service: "db", secret: "s3cret")
        alwaysItem = vault.draft(service: "wifi", secret: "open sesame", protection: .always)
        var writer = try vault.writer(slots: [try vault.passwordSlot(), try vault.deviceSlot(device)])
        try writer.upgradeToVersion3()
        try writer.put(secretItem, random: vault.random)
        try writer.put(alwaysItem, random: vault.random)
        file = try writer.encode(now: TestVault.now, random: vault.random)
    }

    func owner(_ file: [UInt8]) throws -> VaultSnapshot { try TestVault.open(file) }

    func base(_ file: [UInt8]) throws -> VaultSnapshot {
        try VaultSnapshot.open(file, with: Credentials(deviceSecret: device))
    }

    /// The in-place commit `change` makes on `file`, opened with `open`.
    func commit(
        on file: [UInt8],
        opening open: (Format3Fixture, [UInt8]) throws -> VaultSnapshot = { try $0.owner($1) },
        now: Int64 = TestVault.now + 60_000,
        _ change: (inout VaultWriter) throws -> Void
    ) throws -> Format3Commit {
        var writer = try VaultWriter(updating: try open(self, file))
        try change(&writer)
        guard case .inPlace(let commit) = try writer.encodeGeneration(now: now, random: vault.random) else {
            throw VaultFormatError(.invalidParameter, "the writer rewrote the whole file")
        }
        return commit
    }
}

func secret(_ snapshot: VaultSnapshot, _ item: ItemDraft) throws -> String? {
    guard let location = try snapshot.location(of: item.primaryKey) else { return nil }
    return try snapshot.item(at: location, includeSecret: true).secret?.withUnsafeBytes {
        String(decoding: $0, as: UTF8.self)
    }
}

func rotated(_ item: ItemDraft, to secret: String) -> ItemDraft {
    var draft = item
    draft.secret = SecretBytes(utf8: secret)
    return draft
}

@Suite("Format-3 vaults")
struct Format3VaultTests {
    @Test("a new file opens with either keyslot, each reading what its key reaches")
    func newFileOpens() throws {
        let fixture = try Format3Fixture()
        #expect(fixture.file.prefix(8).elementsEqual(VaultHeader.magic))
        #expect(fixture.file[512..<1_024].allSatisfy { $0 == 0 }, "slot 1 is empty after a full write")
        let owner = try fixture.owner(fixture.file)
        #expect(owner.header.isVersion3 && owner.header.generation == 1)
        #expect(owner.itemCount == 2)
        #expect(try secret(owner, fixture.secretItem) == "s3cret")
        #expect(try secret(owner, fixture.alwaysItem) == "open sesame")
        #expect(owner.format3?.root.liveBytes == UInt64(fixture.file.count) - CommitSlot.heapStart)
        #expect(try owner.verify() == (2, 0))
        let base = try fixture.base(fixture.file)
        #expect(try secret(base, fixture.alwaysItem) == "open sesame")
        #expect(throws: VaultFormatError(.keyUnavailable)) { try secret(base, fixture.secretItem) }
        #expect(throws: VaultFormatError(.wrongCredential)) { try TestVault.open(fixture.file, password: "wrong") }
    }

    @Test("a lookup by primary key reads the trees, not the whole index (§10 step 7)")
    func lookupsAreLazy() throws {
        let fixture = try Format3Fixture()
        let owner = try fixture.owner(fixture.file)
        #expect(try secret(owner, fixture.secretItem) == "s3cret")
        #expect(owner.format3?.isRead == false)
        #expect(try owner.index.count == 2)
        #expect(owner.format3?.isRead == true)
    }

    @Test("an in-place commit appends the change, flips the slot and leaves older bytes alone (R3-WR-1)")
    func inPlaceCommit() throws {
        let fixture = try Format3Fixture()
        let before = try fixture.owner(fixture.file)
        let history = try #require(
            try before.format3?.located(tag: before.keys.lookupTag(fixture.secretItem.primaryKey))
        )
        let commit = try fixture.commit(on: fixture.file) { try $0.put(rotated(fixture.secretItem, to: "rotated")) }
        #expect(commit.offset == UInt64(fixture.file.count) && commit.slotOffset == 512)
        let after = commit.applied(to: fixture.file)
        #expect(after[..<512] == fixture.file[..<512] && after[1_024..<fixture.file.count] == fixture.file[1_024...])
        let reopened = try fixture.owner(after)
        #expect(reopened.header.generation == 2 && reopened.format3?.slot.index == 1)
        #expect(try secret(reopened, fixture.secretItem) == "rotated")
        #expect(try secret(reopened, fixture.alwaysItem) == "open sesame")
        #expect(try reopened.format3?.verifyHeap(fileLength: after.count) == 0)
        let located = try #require(
            reopened.format3?.located(tag: reopened.keys.lookupTag(fixture.secretItem.primaryKey)).first
        )
        #expect(located.history.relation(to: try #require(history.first).history) == .descends)
        #expect(located.entry.version == located.history.current.recordVersion)
        // Only the master scope changed: the base scope's root entry is carried over.
        let (old, new) = (try #require(before.format3?.root), try #require(reopened.format3?.root))
        #expect(new.scopes[1] == old.scopes[1] && new.scopes[0].counter > old.scopes[0].counter)
    }

    @Test("an in-place commit adds new items to the trees, each found by tag and in the index")
    func inPlaceAdds() throws {
        let fixture = try Format3Fixture()
        let added = ["a", "b", "c"].map { fixture.vault.draft(service: $0, secret: "new \($0)") }
        let commit = try fixture.commit(on: fixture.file) { writer in
            for draft in added { try writer.put(draft) }
        }
        let after = try fixture.owner(commit.applied(to: fixture.file))
        #expect(after.itemCount == 5)
        for draft in added { #expect(try secret(after, draft) == "new \(draft.attributes.service)") }
        let ids = try after.index.entries.map(\.itemID)
        #expect(Set(ids) == Set(added.map(\.id) + [fixture.secretItem.id, fixture.alwaysItem.id]))
        #expect(try after.verify() == (5, 0))
    }

    @Test("a commit cut off by a crash falls back to the previous one, and the next commit cuts it off")
    func tornCommitFallsBack() throws {
        let fixture = try Format3Fixture()
        let commit = try fixture.commit(on: fixture.file) { try $0.put(rotated(fixture.secretItem, to: "rotated")) }
        let torn = Array(commit.applied(to: fixture.file).dropLast(10))
        let head = try VaultHead.read(torn)
        #expect(head.skippedIncompleteCommit)
        let fallback = try fixture.owner(torn)
        #expect(fallback.header.generation == 1)
        #expect(try secret(fallback, fixture.secretItem) == "s3cret")
        let next = try fixture.commit(on: torn) { try $0.put(rotated(fixture.secretItem, to: "again")) }
        #expect(next.offset == UInt64(fixture.file.count) && next.slotOffset == 512)
        let after = next.applied(to: torn)
        #expect(try secret(fixture.owner(after), fixture.secretItem) == "again")
        let afterHead = try VaultHead.read(after)
        #expect(afterHead.skippedIncompleteCommit == false)
    }

    /// A damaged record below the newest commit is that item's damage alone (its AEAD fails); a
    /// damaged byte in the newest commit fails the commit's hash, so the commit before it is read
    /// and the reader says so (R3-SLT-3, R3-SLT-4): the file is the old or the new vault, never a
    /// new one with damaged parts.
    @Test("damage below the newest commit names one item; in the newest commit the previous commit is read")
    func damagedRecords() throws {
        let fixture = try Format3Fixture()
        let second = try fixture.commit(on: fixture.file) {
            try $0.put(fixture.vault.draft(service: "later", secret: "later"))
        }.applied(to: fixture.file)
        let before = try fixture.owner(second)
        let offset = try #require(
            try before.format3?.located(tag: before.keys.lookupTag(fixture.secretItem.primaryKey)).first
        ).recordOffset
        #expect(offset < Int(try #require(before.format3?.slot.commitStart)), "the item is in the first commit")
        var damaged = second
        damaged[offset + XChaCha20Poly1305.nonceByteCount] ^= 1
        let opened = try fixture.owner(damaged)
        #expect(!opened.skippedIncompleteCommit && opened.header.generation == 2)
        let report = try opened.verifyEachItem()
        #expect(report.damaged.map(\.entry.itemID) == [fixture.secretItem.id] && report.checked == 2)
        // A byte of the newest commit: its hash fails, generation 1 is read, with the note.
        var torn = second
        torn[second.count - 1] ^= 1
        let fallback = try fixture.owner(torn)
        #expect(fallback.skippedIncompleteCommit && fallback.header.generation == 1)
        #expect(try secret(fallback, fixture.secretItem) == "s3cret")
    }

    @Test("a removal leaves a deletion entry whose history follows the item's (R3-EV-1)")
    func removalLeavesDeletionEntry() throws {
        let fixture = try Format3Fixture()
        let commit = try fixture.commit(on: fixture.file) { writer in
            let removed = try writer.remove(fixture.secretItem.id, now: TestVault.now + 5)
            #expect(removed)
        }
        let after = try fixture.owner(commit.applied(to: fixture.file))
        #expect(after.itemCount == 1)
        let deletion = try #require(try after.format3?.contents().deletions[fixture.secretItem.id])
        #expect(deletion.scope == .master && deletion.deletedAt == TestVault.now + 5)
        let before = try fixture.owner(fixture.file)
        let live = try #require(before.format3?.located(tag: deletion.key.tag).first)
        #expect(deletion.history.relation(to: live.history) == .descends)
        #expect(try after.index.deletions.map(\.itemID) == [fixture.secretItem.id])
        _ = try after.verify()
        // The item comes back under its ID: the deletion entry gives way to the live one (R3-ENT-2)
        // and is kept as the item's shadow, with its time and history (R-DEL-3).
        let revived = try fixture.commit(on: commit.applied(to: fixture.file)) { try $0.put(fixture.secretItem) }
        let again = try fixture.owner(revived.applied(to: commit.applied(to: fixture.file)))
        let deletions = try #require(try again.format3?.contents().deletions)
        #expect(deletions[fixture.secretItem.id] == nil)
        let shadow = try #require(deletions[VaultMerge.shadowID(of: fixture.secretItem.id)])
        #expect(shadow.deletedAt == deletion.deletedAt && shadow.history == deletion.history)
        #expect(try secret(again, fixture.secretItem) == "s3cret")
        _ = try again.verify()
    }

    @Test("a base-key holder writes the base scope; a master-scope change is refused (R3-SCP-3)")
    func baseHolderWritesOnlyItsScope() throws {
        let fixture = try Format3Fixture()
        let planted = fixture.vault.draft(service: "planted")
        #expect(throws: VaultFormatError(.keyUnavailable)) {
            try fixture.commit(on: fixture.file, opening: { try $0.base($1) }) { try $0.put(planted) }
        }
        let commit = try fixture.commit(on: fixture.file, opening: { try $0.base($1) }) {
            try $0.put(rotated(fixture.alwaysItem, to: "new wifi"))
        }
        let owner = try fixture.owner(commit.applied(to: fixture.file))
        #expect(try secret(owner, fixture.alwaysItem) == "new wifi")
        #expect(try secret(owner, fixture.secretItem) == "s3cret")
        #expect(try owner.verify() == (2, 0))
    }

    /// The attack of issue 21: a holder without the master key puts back an older record of a
    /// master-scope item in a new generation. The master scope's tree must change, so its tag,
    /// which the holder cannot compute, no longer matches.
    @Test("a base-key holder cannot put back one older master-scope record (R3-SCP-1)")
    func olderRecordCannotBePutBack() throws {
        let fixture = try Format3Fixture()
        let rotatedFile = try fixture.commit(on: fixture.file) {
            try $0.put(rotated(fixture.secretItem, to: "rotated"))
        }.applied(to: fixture.file)
        let old = try #require(
            try fixture.owner(fixture.file).format3?.contents().index.offsets.first.map { UInt64($0) }
        )
        let base = try #require(try fixture.base(rotatedFile).format3)
        let state = try #require(base.state(.master))
        guard case .live(var entry) = try base.tree(.master).allEntries(top: state.tree, in: base.heap).first else {
            Issue.record("the master scope is empty")
            return
        }
        let oldEntries = try fixture.owner(fixture.file).format3!.contents()
        entry.recordOffset = old
        entry.history = oldEntries.histories[0]
        var heap = base.heap
        let forgedTop = try base.tree(.master).applying(
            [entry.key: .live(entry)],
            to: state.tree,
            in: &heap,
            random: fixture.vault.random
        ).top
        var forged = base.root
        forged.scopes[0].tree = forgedTop
        let owner = try fixture.owner(rotatedFile)
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try forged.verifyTags(
                keys: owner.keys,
                vaultID: fixture.vault.vaultID,
                groupsHash: Format3Store.groupsHash(of: owner.header)
            )
        }
        #expect(throws: Never.self, "the base holder's own check cannot see it") {
            try forged.verifyTags(keys: base.keys, vaultID: fixture.vault.vaultID, groupsHash: [])
        }
    }

    @Test("a format 1.1 file migrates to format 3 with every record byte for byte (§11)")
    func migrationKeepsRecords() throws {
        let vault = TestVault(seed: "migrate to 3")
        let items = (0..<20).map { vault.draft(service: "s\($0)", secret: "secret \($0)") }
        var writer = try vault.writer()
        writer.upgradeToVersion11()
        for item in items { try writer.put(item, random: vault.random) }
        try writer.remove(items[3].id, now: TestVault.now - 10)
        let v11 = try writer.encode(now: TestVault.now, random: vault.random)
        let old = try TestVault.open(v11)
        var migrating = try VaultWriter(updating: old)
        #expect(try migrating.upgradeToVersion3())
        guard case .whole(let v3) = try migrating.encodeGeneration(now: TestVault.now + 1, random: vault.random)
        else {
            Issue.record("a migration commits in place")
            return
        }
        let new = try TestVault.open(v3)
        #expect(new.header.isVersion3 && new.header.generation == old.header.generation + 1)
        #expect(new.header.vaultID == old.header.vaultID && new.header.keyslots == old.header.keyslots)
        let (oldIndex, newIndex) = (try old.index, try new.index)
        #expect(newIndex.entries == oldIndex.entries)
        for position in 0..<oldIndex.count {
            #expect(try old.recordBytes(at: position) == new.recordBytes(at: position))
        }
        let contents = try #require(try new.format3?.contents())
        #expect(contents.histories.map(\.events.count).allSatisfy { $0 == 1 })
        #expect(contents.histories.map(\.current.recordVersion) == oldIndex.entries.map(\.version))
        let deletion = try #require(contents.deletions[items[3].id])
        #expect(deletion.key.tag == 0 && deletion.scope == .master)
        #expect(deletion.history == EventHistory(migratedDeletionOf: items[3].id, at: TestVault.now - 10))
        #expect(try new.verify() == (19, 0))
    }

    @Test("a rekey rewrites the whole file and keeps every item's current event")
    func rekeyKeepsEvents() throws {
        let fixture = try Format3Fixture()
        let before = try fixture.owner(fixture.file)
        var writer = try VaultWriter(updating: before)
        let newMaster: MasterKey = fixture.vault.random.key()
        let newKeys = KeyHierarchy.keys(master: newMaster, deviceSecret: nil, vaultID: fixture.vault.vaultID)
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .password,
            wrapping: newMaster.secret,
            scope: .masterKey,
            credentials: .password(TestVault.password),
            kdf: TestVault.tinyKDF,
            vaultID: fixture.vault.vaultID,
            random: fixture.vault.random,
            allowWeak: true
        )
        try writer.rekey(to: newKeys, keyslots: [slot], droppingForeign: true, now: TestVault.now + 1)
        guard case .whole(let file) = try writer.encodeGeneration(now: TestVault.now + 2, random: fixture.vault.random)
        else {
            Issue.record("a rekey commits in place")
            return
        }
        let after = try fixture.owner(file)
        #expect(try secret(after, fixture.secretItem) == "s3cret")
        #expect(try after.format3?.contents().histories == before.format3?.contents().histories)
    }

    @Test("commits that leave more waste than live bytes (and over 1 MiB) make a full rewrite (R3-WR-3)")
    func wasteMakesAFullRewrite() throws {
        let fixture = try Format3Fixture()
        var file = fixture.file
        let big = String(repeating: "x", count: 300_000)
        var rewrote = false
        for round in 0..<20 {
            var writer = try VaultWriter(updating: try fixture.owner(file))
            try writer.put(rotated(fixture.secretItem, to: big + "\(round)"))
            switch try writer.encodeGeneration(now: TestVault.now + Int64(round), random: fixture.vault.random) {
            case .whole(let whole):
                file = whole
                rewrote = true
            case .inPlace(let commit):
                #expect(commit.waste <= max(commit.liveBytes, 1 << 20))
                file = commit.applied(to: file)
            }
            if rewrote { break }
        }
        #expect(rewrote)
        #expect(try secret(fixture.owner(file), fixture.secretItem)?.hasPrefix(big) == true)
        #expect(file[512..<1_024].allSatisfy { $0 == 0 })
    }
}
