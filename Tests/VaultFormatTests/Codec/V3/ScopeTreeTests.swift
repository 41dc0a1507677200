// Format-3 scope trees: lookups, changes path by path, and what a one-item change appends
// (Spec/format-v3.md §6.2, §12.4; design draft).

import Testing
import VaultTestSupport

@testable import VaultFormat

/// A heap in memory, starting where a format-3 heap starts.
private struct MemoryHeap: ChunkStore {
    var bytes: [UInt8] = []
    let start = CommitSlot.heapStart

    func read(_ reference: ChunkReference) throws(VaultFormatError) -> [UInt8] {
        let low = Int(reference.offset) - Int(start)
        guard low >= 0, low + Int(reference.length) <= bytes.count else {
            throw VaultFormatError(.structure, "a reference runs past the heap")
        }
        let chunk = Array(bytes[low..<low + Int(reference.length)])
        guard SecretMemory.equal(BLAKE2b.hash(chunk, length: 32), reference.hash) else {
            throw VaultFormatError(.indexCorrupt, "a chunk's hash does not match")
        }
        return chunk
    }

    mutating func append(_ chunk: [UInt8]) -> ChunkReference {
        let reference = ChunkReference(
            offset: start + UInt64(bytes.count),
            length: UInt32(chunk.count),
            hash: BLAKE2b.hash(chunk, length: 32)
        )
        bytes += chunk
        return reference
    }
}

private let vaultID = [UInt8](repeating: 3, count: 16)
private let random = SeededRandom(seed: "scope trees")
private let keys = KeyHierarchy.keys(master: random.key(), deviceSecret: nil, vaultID: vaultID)

private func entry(_ tag: UInt64, _ id: ItemID, event: UInt64 = 1, deleted: Bool = false) -> TreeEntry {
    let key = TreeKey(tag: tag, itemID: id)
    let history = EventHistory(first: EventID(migratedVersion: event))
    if deleted { return .deleted(key: key, deletedAt: 1_700_000_000_000, history: history) }
    return .live(
        .init(
            key: key,
            itemClass: .genericPassword,
            protectionClass: .whenUnlocked,
            attributesLength: 60,
            secretLength: 32,
            recordOffset: 1_024 + tag % 1_000_000,
            history: history
        )
    )
}

/// `count` entries with distinct random tags, in key order.
private func entries(_ count: Int, using generator: inout SplitMix64) -> [TreeEntry] {
    (0..<count).map { _ in entry(generator.next() >> 1, generator.itemID()) }.sorted { $0.key < $1.key }
}

@Suite("Format-3 scope trees")
struct ScopeTreeTests {
    let tree = ScopeTree(scope: .master, keys: keys, vaultID: vaultID)

    @Test("random changes keep the tree equal to a dictionary, and every lookup finds its tag")
    func randomChangesMatchAReference() throws {
        var generator = SplitMix64(seed: 21)
        var heap = MemoryHeap()
        var reference: [TreeKey: TreeEntry] = [:]
        var top = tree.build([], into: &heap, random: random)
        for round in 0..<40 {
            var changes: [TreeKey: TreeEntry?] = [:]
            for _ in 0..<Int.random(in: 1...200, using: &generator) {
                let existing = reference.keys.randomElement(using: &generator)
                switch (Int.random(in: 0..<4, using: &generator), existing) {
                case (0, let key?): changes[key] = .some(nil)
                case (1, let key?): changes[key] = entry(key.tag, key.itemID, event: UInt64(round + 2), deleted: true)
                default:
                    // A few tags repeat, so that equal tags span nodes.
                    let tag = generator.next() % 2 == 0 ? generator.next() % 64 : generator.next() >> 1
                    let new = entry(tag, generator.itemID(), event: UInt64(round + 2))
                    changes[new.key] = new
                }
            }
            // Now and then, the removal of a key the tree does not hold: a change that changes nothing.
            if round % 3 == 0 { changes[TreeKey(tag: generator.next() >> 1, itemID: generator.itemID())] = .some(nil) }
            let applied = try tree.applying(changes, to: top, in: &heap, random: random)
            top = applied.top
            // The entries replaced or removed, as the old tree held them, in key order.
            #expect(applied.replaced == changes.keys.sorted().compactMap { reference[$0] }, "round \(round)")
            for (key, value) in changes { reference[key] = value }
            let all = try tree.allEntries(top: top, in: heap)
            #expect(all == reference.values.sorted { $0.key < $1.key }, "round \(round)")
            for tag in Set(reference.keys.map(\.tag)).shuffled(using: &generator).prefix(20) {
                let expected = reference.values.filter { $0.key.tag == tag }.sorted { $0.key < $1.key }
                #expect(try tree.entries(withTag: tag, top: top, in: heap) == expected)
            }
        }
        #expect(reference.count > 400, "the tree grew past one level (about 80 entries a leaf)")
    }

    @Test("removing every entry leaves an empty tree")
    func removingEverythingLeavesAnEmptyLeaf() throws {
        var generator = SplitMix64(seed: 5)
        var heap = MemoryHeap()
        let all = entries(500, using: &generator)
        let top = tree.build(all, into: &heap, random: random)
        let emptied = try tree.applying(
            Dictionary(uniqueKeysWithValues: all.map { ($0.key, TreeEntry?.none) }),
            to: top,
            in: &heap,
            random: random
        ).top
        #expect(try tree.allEntries(top: emptied, in: heap).isEmpty)
    }

    @Test("a damaged, misplaced or foreign node is refused")
    func damagedNodesAreRefused() throws {
        var generator = SplitMix64(seed: 8)
        var heap = MemoryHeap()
        let top = tree.build(entries(300, using: &generator), into: &heap, random: random)
        let other = ScopeTree(scope: .base, keys: keys, vaultID: vaultID)
        #expect(throws: VaultFormatError(.indexCorrupt), "a node of another scope's tree") {
            try other.allEntries(top: top, in: heap)
        }
        let otherVault = ScopeTree(scope: .master, keys: keys, vaultID: [UInt8](repeating: 4, count: 16))
        #expect(throws: VaultFormatError(.indexCorrupt), "a node of another vault") {
            try otherVault.allEntries(top: top, in: heap)
        }
        var damaged = heap
        damaged.bytes[100] ^= 1
        #expect(throws: VaultFormatError(.indexCorrupt)) { try tree.allEntries(top: top, in: damaged) }
    }

    /// The draft's cost claim (§12.4): a one-item change appends one node per level, about 9 KiB
    /// at 10,000 and 100,000 items, so that with the record, the root and the slot a commit stays
    /// under the git growth targets of issue 21 (16 KiB and 64 KiB).
    @Test("a one-item change appends one node per level", arguments: [10_000, 100_000])
    func oneItemChangeAppendsOnePath(count: Int) throws {
        var generator = SplitMix64(seed: UInt64(count))
        var heap = MemoryHeap()
        let all = entries(count, using: &generator)
        let top = tree.build(all, into: &heap, random: random)
        let height = Int(try tree.node(top, level: nil, isTop: true, in: heap).level) + 1
        #expect(height == 3)
        var appended: [Int] = []
        var current = top
        for index in stride(from: 0, to: count, by: count / 10) {
            let before = heap.bytes.count
            let changed = entry(all[index].key.tag, all[index].key.itemID, event: 99)
            let result = try tree.applying([changed.key: changed], to: current, in: &heap, random: random)
            #expect(result.dropped.count == height, "one node per level is replaced")
            current = result.top
            appended.append(heap.bytes.count - before)
            #expect(try tree.entries(withTag: changed.key.tag, top: current, in: heap) == [changed])
        }
        let nodeLimit = height * (ScopeTree.targetNodeByteCount + 40)
        #expect(appended.allSatisfy { $0 <= nodeLimit }, "appended \(appended), at most \(nodeLimit)")
        #expect(appended.max()! <= 14 * 1_024)
    }
}
