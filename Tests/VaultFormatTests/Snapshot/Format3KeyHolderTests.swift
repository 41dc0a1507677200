// Format 3 against key holders with less than the master key: the attacks of issues 20 and 21
// replayed (Spec/format-v3.md §7.3, R3-SCP-1 to R3-SCP-3).

import Testing

@testable import VaultFormat

@Suite("Format 3 against key holders")
struct Format3KeyHolderTests {
    typealias Team = AccessGroupForgeryTests.Team

    /// The team vault of the format-2.0 forgery tests (`deploy` with a limited runner, `billing`,
    /// and an ungrouped item), migrated to format 3.
    static func team() throws -> (Team, [UInt8]) {
        let team = try Team()
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        try writer.upgradeToVersion3()
        return (team, try writer.encode(now: 1, random: SeededRandom(seed: "team 3")))
    }

    /// The keys of a holder of `BK` alone.
    static func baseKeys(_ team: Team, _ file: [UInt8]) throws -> VaultKeys {
        VaultKeys(master: nil, base: KeyHierarchy.baseKey(from: team.master), deviceSecret: nil, vaultID: team.vaultID)
    }

    /// Issue 20's hole, format 2.0 only: a holder of `BK` drops the `deploy` field (so the owner
    /// no longer knows `deploy` had a domain) and writes a commit whose root lists no `deploy`
    /// scope, carrying the master and base scopes over byte for byte. The master scope's tag covers
    /// the header's access-group fields (R3-SCP-2), which it can no longer match: the owner's open
    /// fails.
    @Test("a base-key holder that drops an access-group field fails the owner's open (R3-SCP-2)")
    func droppedGroupField_failsTheOwnersOpen() throws {
        let (team, file) = try Self.team()
        let keys = try Self.baseKeys(team, file)
        let owner = try VaultSnapshot.open(file, with: Team.owner)
        let store = try #require(owner.format3)
        var header = owner.header
        header.accessGroups = []
        header.recipientStanzas = header.recipientStanzas.filter { !$0.isLimited }
        header.generation += 1
        var heap = store.heap
        let chunk = heap.append(HeaderChunk.encode(header))
        let scopes = store.root.scopes.filter { !$0.scope.isGroup }
        let random = SeededRandom(seed: "drop deploy")
        let root = heap.append(
            Root(liveBytes: store.root.liveBytes, scopes: scopes).sealed(
                keys: keys,
                vaultID: team.vaultID,
                generation: header.generation,
                headerHash: chunk.hash,
                random: random
            )
        )
        let slot = CommitSlot(
            index: UInt8(1 - store.slot.index),
            generation: header.generation,
            commitStart: store.slot.committedLength,
            committedLength: store.slot.committedLength + UInt64(heap.appended.count),
            commitHash: BLAKE2b.hash(heap.appended, length: 32),
            header: chunk,
            root: root
        )
        var forged = file + heap.appended
        let offset = Int(slot.index) * CommitSlot.byteCount
        forged.replaceSubrange(
            offset..<offset + CommitSlot.byteCount,
            with: slot.encoded(mac: { BLAKE2b.hash($0, key: keys.headerKey, length: 32) })
        )
        // The base holder's own open accepts it: it checks only the base scope's tag.
        let head = try VaultHead.read(forged)
        let asBase = try VaultSnapshot.open(
            headerBytes: head.bytes,
            fileLength: forged.count,
            source: InMemoryFile(forged),
            keys: keys,
            openedKeyslot: 0
        )
        #expect(asBase.header.accessGroups.isEmpty && asBase.header.generation == owner.header.generation + 1)
        // The owner's fails: the master scope's tag no longer matches the header's group fields.
        #expect(throws: VaultFormatError(.indexCorrupt)) { try VaultSnapshot.open(forged, with: Team.owner) }
    }

    /// Issue 20 finding 1 replayed: a base-key holder replaces the `deploy` item by a domain-0
    /// `always` record naming `deploy`. In format 3 the grouped item lives in the `deploy` scope,
    /// whose tag `BK` cannot compute, and the base scope may not hold it (R3-ENT-1).
    @Test("a base-key holder cannot write an item into another scope (R3-SCP-3)")
    func baseHolderCannotTouchAGroupScope() throws {
        let (team, file) = try Self.team()
        var writer = try VaultWriter(updating: try VaultSnapshot.open(file, with: Team.owner))
        writer.keys = try Self.baseKeys(team, file)
        let id = try #require(team.ids["db"])
        // Over the grouped item's ID, in the base scope: the old entry in `deploy` must go, which
        // needs `deploy`'s scope key.
        try writer.insertRaw(
            try RecordCodec.seal(
                ItemDraft(
                    id: id,
                    protectionClass: .always,
                    attributes: Team.attributes("db", "deploy"),
                    secret: SecretBytes(utf8: "forged")
                ),
                version: 9,
                vaultID: team.vaultID,
                keys: writer.keys,
                domain: 0,
                random: SeededRandom(seed: "forged db")
            )
        )
        #expect(throws: VaultFormatError(.keyUnavailable)) {
            try writer.encodeGeneration(now: 2, random: SeededRandom(seed: "commit"))
        }
    }

    /// Issue 21: the `deploy` runner puts back billing's previous record in a new generation. In
    /// format 3 `billing`'s items are in the master scope (no billing recipient here) or in
    /// `billing`'s own scope; either way their tree is tagged under a key the runner lacks.
    @Test("a limited recipient cannot put back another scope's older record (R3-SCP-1)")
    func limitedRecipientCannotRollBackAnotherScope() throws {
        let (team, file) = try Self.team()
        var owner = try VaultWriter(updating: try VaultSnapshot.open(file, with: Team.owner))
        let billing = try #require(team.ids["bank"])
        var draft = try RecordCodec.openDraft(
            try #require(try owner.record(for: billing)).bytes[...],
            entry: try #require(try owner.entry(for: billing)),
            vaultID: team.vaultID,
            keys: owner.keys
        )
        draft.secret = SecretBytes(utf8: "rotated")
        try owner.put(draft)
        guard case .inPlace(let commit) = try owner.encodeGeneration(now: 3, random: SeededRandom(seed: "rotate"))
        else {
            Issue.record("the rotation rewrote the file")
            return
        }
        let rotated = commit.applied(to: file)
        // The runner's view: every tree and the old record's place are readable to it.
        let runner = try VaultSnapshot.open(rotated, with: .identity(team.runner))
        let store = try #require(runner.format3)
        let old = try #require(try VaultSnapshot.open(file, with: Team.owner).format3?.contents())
        let oldPosition = try #require((0..<old.index.count).first { old.index.itemID(at: $0) == billing })
        let scope = ScopeID(
            protectionClass: old.index.entry(at: oldPosition).protectionClass,
            domain: old.index.entry(at: oldPosition).domain
        )
        let state = try #require(store.state(scope))
        let tree = store.tree(scope)
        var entry: TreeEntry.LiveEntry?
        for case .live(let live) in try tree.allEntries(top: state.tree, in: store.heap)
        where live.key.itemID == billing {
            entry = live
        }
        var putBack = try #require(entry)
        putBack.recordOffset = UInt64(old.index.offsets[oldPosition])
        putBack.history = old.histories[oldPosition]
        var heap = store.heap
        let top = try tree.applying(
            [putBack.key: .live(putBack)],
            to: state.tree,
            in: &heap,
            random: SeededRandom(seed: "x")
        )
        .top
        var root = store.root
        let index = try #require(root.scopes.firstIndex { $0.scope == scope })
        root.scopes[index].tree = top  // the tag stays: the runner cannot compute the new one
        let ownerKeys = try VaultSnapshot.open(rotated, with: Team.owner)
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try root.verifyTags(
                keys: ownerKeys.keys,
                vaultID: team.vaultID,
                groupsHash: Format3Store.groupsHash(of: ownerKeys.header)
            )
        }
    }
}
