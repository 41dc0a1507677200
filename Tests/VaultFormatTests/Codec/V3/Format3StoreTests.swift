// Format-3 scans of every entry: Format3Store.contents() and the full check of the heap read each
// tree once (ScopeTree.forEachEntry) and give what reading each tree on its own gives
// (Spec/format-v3.md §6, §10 step 8, R3-FILE-2).

import Testing

@testable import VaultFormat

/// A vault of master-scope and base-scope items whose keys interleave across the two trees,
/// after in-place commits that rotate, add, delete and move items between scopes, so that its
/// heap holds waste, several tree levels and deletion entries.
private struct ScannedVault {
    let fixture: Format3Fixture
    let file: [UInt8]

    init() throws {
        let fixture = try Format3Fixture()
        let vault = fixture.vault
        let master = (0..<360).map { vault.draft(service: "master-\($0)", secret: "m\($0)") }
        let base = (0..<140).map { vault.draft(service: "base-\($0)", secret: "b\($0)", protection: .always) }
        var file = fixture.file
        // 500 items in one commit: about 75 KB appended, in place (R3-WR-2's 1 MiB is far).
        file = try fixture.commit(on: file) { writer in
            for item in master + base { try writer.put(item, random: vault.random) }
        }.applied(to: file)
        file = try fixture.commit(on: file) { writer in
            for item in master.prefix(40) { try writer.put(rotated(item, to: "rotated"), random: vault.random) }
            for item in base.suffix(10) { _ = try writer.remove(item.id, now: TestVault.now + 1, random: vault.random) }
        }.applied(to: file)
        file = try fixture.commit(on: file) { writer in
            var moved = master[100]
            moved.protectionClass = .always  // master scope to base scope
            try writer.put(moved, random: vault.random)
            _ = try writer.remove(master[200].id, now: TestVault.now + 2, random: vault.random)
            try writer.put(vault.draft(service: "late"), random: vault.random)
        }.applied(to: file)
        self.fixture = fixture
        self.file = file
    }

    func owner() throws -> Format3Store { try #require(try fixture.owner(file).format3) }
}

/// What ``Format3Store/contents()`` gives, computed the plain way: each tree read whole on its
/// own, the live entries sorted across scopes.
private func plainContents(_ store: Format3Store) throws -> (
    entries: [IndexEntry], offsets: [Int], histories: [EventHistory], deletions: [ItemID: Format3Deletion]
) {
    var live: [(IndexEntry, Int, EventHistory)] = []
    var deletions: [ItemID: Format3Deletion] = [:]
    for state in store.root.scopes {
        for entry in try store.tree(state.scope).allEntries(top: state.tree, in: store.heap) {
            switch entry {
            case .live(let item):
                live.append((Format3Store.indexEntry(item, scope: state.scope), Int(item.recordOffset), item.history))
            case .deleted(let key, let deletedAt, let history):
                deletions[key.itemID] = Format3Deletion(
                    key: key,
                    scope: state.scope,
                    deletedAt: deletedAt,
                    history: history
                )
            }
        }
    }
    live.sort { $0.0.sortsBefore($1.0) }
    return (live.map(\.0), live.map(\.1), live.map(\.2), deletions)
}

/// Every chunk the current commit reaches, found the plain way: the nodes level by level, every
/// live entry's record, the header chunk and the root.
private func plainChunks(_ store: Format3Store) throws -> [(UInt64, UInt64)] {
    var ranges: [(UInt64, UInt64)] = [store.slot.header, store.slot.root].map { ($0.offset, UInt64($0.length)) }
    for state in store.root.scopes {
        let tree = store.tree(state.scope)
        var level = [state.tree]
        while !level.isEmpty {
            ranges += level.map { ($0.offset, UInt64($0.length)) }
            var next: [ChunkReference] = []
            for reference in level {
                if case .interior(_, let children) = try tree.node(reference, level: nil, isTop: false, in: store.heap)
                {
                    next += children.map(\.child)
                }
            }
            level = next
        }
        for case .live(let item) in try tree.allEntries(top: state.tree, in: store.heap) {
            ranges.append((item.recordOffset, UInt64(Format3Store.indexEntry(item, scope: state.scope).recordLength)))
        }
    }
    return ranges.sorted { $0.0 < $1.0 }
}

/// `file` with one more commit in slot `1 − i` whose root is the current one changed by `change`
/// (sealed and tagged with the owner's keys): a root no honest writer makes.
private func reRooted(
    _ file: [UInt8],
    fixture: Format3Fixture,
    _ change: (inout Root, inout Format3Heap, Format3Store) throws -> Void
) throws -> [UInt8] {
    let owner = try fixture.owner(file)
    let store = try #require(owner.format3)
    var root = store.root
    var heap = store.heap
    try change(&root, &heap, store)
    let generation = store.slot.generation + 1
    let rootReference = heap.append(
        root.sealed(
            keys: owner.keys,
            vaultID: owner.header.vaultID,
            generation: generation,
            headerHash: store.slot.header.hash,
            random: fixture.vault.random
        )
    )
    let index = 1 - Int(store.slot.index)
    let slot = CommitSlot(
        index: UInt8(index),
        generation: generation,
        commitStart: store.slot.committedLength,
        committedLength: store.slot.committedLength + UInt64(heap.appended.count),
        commitHash: BLAKE2b.hash(heap.appended, length: 32),
        header: store.slot.header,
        root: rootReference
    )
    var result = Array(file.prefix(Int(store.slot.committedLength))) + heap.appended
    result.replaceSubrange(
        index * CommitSlot.byteCount..<(index + 1) * CommitSlot.byteCount,
        with: slot.encoded(mac: { BLAKE2b.hash($0, key: owner.keys.headerKey, length: 32) })
    )
    return result
}

/// The scope state `state` with other counts or another tree, tagged again with the owner's key.
private func retagged(
    _ state: ScopeState,
    tree: ChunkReference? = nil,
    liveCount: UInt32? = nil,
    store: Format3Store
) throws -> ScopeState {
    ScopeState(
        scope: state.scope,
        counter: state.counter + 1,
        tree: tree ?? state.tree,
        liveCount: liveCount ?? state.liveCount,
        deletedCount: state.deletedCount,
        key: try #require(store.keys.scopeKeys[state.scope]),
        vaultID: store.header.vaultID,
        groupsHash: Format3Store.groupsHash(of: store.header)
    )
}

@Suite("Format-3 scans of every entry")
struct Format3StoreTests {
    @Test("contents() is what reading each tree on its own gives, sorted across scopes")
    func contentsMatchesEachTreeReadOnItsOwn() throws {
        let vault = try ScannedVault()
        let store = try vault.owner()
        #expect(store.root.scopes.allSatisfy { $0.liveCount > 0 }, "both scopes hold items")
        let plain = try plainContents(store)
        let contents = try store.contents()
        #expect(contents.index.count == plain.entries.count && plain.entries.count == 492)
        #expect(contents.index.entries == plain.entries)
        #expect(contents.index.offsets == plain.offsets)
        #expect(contents.histories == plain.histories)
        #expect(contents.deletions == plain.deletions && contents.deletions.count == 11)
        #expect(contents.histories.contains { $0.events.count == 2 }, "rotated items carry two events")
        #expect(
            contents.index.deletions
                == plain.deletions.values.map { DeletionRecord(itemID: $0.key.itemID, deletedAt: $0.deletedAt) }
                .sorted { $0.itemID < $1.itemID }
        )
    }

    @Test("the full check counts the same chunks as reading the nodes level by level (R3-FILE-2)")
    func verifyHeapCountsEveryChunk() throws {
        let vault = try ScannedVault()
        let store = try vault.owner()
        let chunks = try plainChunks(store)
        #expect(chunks.reduce(0) { $0 + $1.1 } == store.root.liveBytes)
        #expect(try store.verifyHeap(fileLength: vault.file.count + 7) == 7)
        let layout = try store.contents().layout
        #expect(layout.chunks.count + 2 == chunks.count)
        let sorted =
            (layout.chunks + [(store.slot.header.offset, UInt64(store.slot.header.length))]
            + [(store.slot.root.offset, UInt64(store.slot.root.length))]).sorted { $0.offset < $1.offset }
        #expect(sorted.map(\.offset) == chunks.map(\.0) && sorted.map(\.length) == chunks.map(\.1))
        #expect(try vault.fixture.owner(vault.file).verify().checked == 492)
    }

    @Test("a root whose live bytes are not the chunks' is refused at full verification (R3-FILE-2)")
    func verifyHeapRefusesWrongLiveBytes() throws {
        let vault = try ScannedVault()
        let forged = try reRooted(vault.file, fixture: vault.fixture) { root, _, _ in root.liveBytes += 1 }
        let store = try #require(try vault.fixture.owner(forged).format3)
        #expect(try store.contents().index.count == 492, "a lookup or a scan does not check it")
        #expect(throws: VaultFormatError(.indexCorrupt)) { try store.verifyHeap() }
    }

    @Test("a root whose counts are not its tree's is refused at full verification (R3-ROOT-1)")
    func verifyHeapRefusesWrongCounts() throws {
        let vault = try ScannedVault()
        let forged = try reRooted(vault.file, fixture: vault.fixture) { root, _, store in
            root.scopes[1] = try retagged(root.scopes[1], liveCount: root.scopes[1].liveCount + 1, store: store)
        }
        let store = try #require(try vault.fixture.owner(forged).format3)
        #expect(throws: VaultFormatError(.indexCorrupt)) { try store.verifyHeap() }
    }

    @Test("two entries naming one record are refused at full verification as overlapping chunks (R3-FILE-2)")
    func verifyHeapRefusesOverlappingRecords() throws {
        let vault = try ScannedVault()
        let forged = try reRooted(vault.file, fixture: vault.fixture) { root, heap, store in
            let tree = store.tree(.master)
            let entries = try tree.allEntries(top: root.scopes[0].tree, in: heap)
            let live = entries.compactMap { entry -> TreeEntry.LiveEntry? in
                if case .live(let item) = entry { item } else { nil }
            }
            var twin = live[1]
            twin.recordOffset = live[0].recordOffset  // the same record length: the same range
            #expect(live[0].attributesLength == twin.attributesLength && live[0].secretLength == twin.secretLength)
            let top = try tree.applying(
                [twin.key: .live(twin)],
                to: root.scopes[0].tree,
                in: &heap,
                random: vault.fixture.vault.random
            ).top
            root.scopes[0] = try retagged(root.scopes[0], tree: top, store: store)
        }
        let store = try #require(try vault.fixture.owner(forged).format3)
        #expect(throws: VaultFormatError(.structure)) { try store.verifyHeap() }
    }

    @Test("a tree whose keys do not ascend across its leaves is refused by a scan (R3-TREE-3)")
    func scanRefusesKeysOutOfOrderAcrossLeaves() throws {
        let vault = try ScannedVault()
        let store = try vault.owner()
        let tree = store.tree(.master)
        let e = Array(try tree.allEntries(top: try #require(store.state(.master)).tree, in: store.heap).prefix(4))
        var heap = store.heap
        let random = vault.fixture.vault.random
        // Two well-formed leaves under a well-formed parent: [e0, e1] [e2, e3] ascend across the
        // leaves; [e0, e2] [e1, e3] do not, though each node is in order and starts with its key.
        func twoLeaves(_ first: [TreeEntry], _ second: [TreeEntry]) -> ChunkReference {
            let children = [first, second].map { ($0[0].key, tree.append(.leaf($0), to: &heap, random: random)) }
            return tree.append(.interior(level: 1, children: children), to: &heap, random: random)
        }
        let ordered = twoLeaves([e[0], e[1]], [e[2], e[3]])
        let crossed = twoLeaves([e[0], e[2]], [e[1], e[3]])
        var nodes: [ChunkReference] = []
        var seen: [TreeKey] = []
        try tree.forEachEntry(top: ordered, in: heap, visiting: &nodes) { seen.append($0.key) }
        #expect(seen == e.map(\.key) && nodes.count == 3)
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try tree.forEachEntry(top: crossed, in: heap, visiting: &nodes) { _ in }
        }
        #expect(throws: VaultFormatError(.indexCorrupt)) { try tree.allEntries(top: crossed, in: heap) }
    }
}
