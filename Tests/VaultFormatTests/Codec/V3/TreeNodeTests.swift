// Format-3 tree nodes and entries (Spec/format-v3.md §6.2, §6.3; design draft).

import Testing

@testable import VaultFormat

private func key(_ tag: UInt64, _ id: UInt8) -> TreeKey {
    TreeKey(tag: tag, itemID: ItemID(bytes: [UInt8](repeating: id, count: 16)))
}

private func live(_ key: TreeKey, _ protection: ProtectionClass = .whenUnlocked, event: UInt64 = 1) -> TreeEntry {
    .live(
        .init(
            key: key,
            itemClass: .genericPassword,
            protectionClass: protection,
            attributesLength: 60,
            secretLength: 32,
            recordOffset: 4_096,
            history: EventHistory(first: EventID(migratedVersion: event))
        )
    )
}

private let reference = ChunkReference(offset: 1_024, length: 4_000, hash: [UInt8](repeating: 7, count: 32))

@Suite("Format-3 tree nodes")
struct TreeNodeTests {
    @Test("a leaf and an interior node round-trip, in the sizes the draft counts")
    func nodesRoundTrip() throws {
        let leaf = TreeNode.leaf([
            live(key(1, 1)),
            .deleted(
                key: key(1, 2),
                deletedAt: 1_700_000_000_000,
                history: EventHistory(first: .init(migratedVersion: 3))
            ),
            live(key(9, 0), .whenUnlockedThisDeviceOnly, event: 2),
        ])
        let bytes = leaf.encoded()
        #expect(bytes.count == 3 + 49 + 42 + 49, "49 bytes a live entry, 42 a deletion, with one event")
        #expect(try TreeNode.decode(bytes, scope: .master, isTop: false) == leaf)
        let interior = TreeNode.interior(level: 1, children: [(key(1, 1), reference), (key(9, 0), reference)])
        let interiorBytes = interior.encoded()
        #expect(interiorBytes.count == 3 + 2 * 68)
        #expect(try TreeNode.decode(interiorBytes, scope: .master, isTop: true) == interior)
        #expect(try TreeNode.decode(TreeNode.leaf([]).encoded(), scope: .base, isTop: true) == .leaf([]))
    }

    @Test("an entry in a tree of another scope is indexCorrupt (R3-ENT-1)")
    func entriesMustBeInTheirScope() throws {
        let always = TreeNode.leaf([live(key(1, 1), .always)]).encoded()
        #expect(throws: VaultFormatError(.indexCorrupt)) { try TreeNode.decode(always, scope: .master, isTop: true) }
        #expect(throws: Never.self) { try TreeNode.decode(always, scope: .base, isTop: true) }
        let plain = TreeNode.leaf([live(key(1, 1))]).encoded()
        #expect(throws: VaultFormatError(.indexCorrupt)) { try TreeNode.decode(plain, scope: .base, isTop: true) }
        #expect(throws: Never.self) { try TreeNode.decode(always, scope: .group(3), isTop: true) }
        #expect(ScopeID(protectionClass: .alwaysThisDeviceOnly, domain: 0) == .base)
        #expect(ScopeID(protectionClass: .always, domain: 4) == .group(4))
    }

    @Test("malformed nodes are indexCorrupt (R3-TREE-1 to R3-TREE-3)")
    func malformedNodesAreRefused() throws {
        // 1,337 entries fit in 64 KiB; one more does not, and is otherwise a well-formed leaf.
        let largest = TreeNode.leaf((0..<1_337).map { live(key(UInt64($0), 1)) })
        #expect(try TreeNode.decode(largest.encoded(), scope: .master, isTop: true) == largest)
        let good = TreeNode.leaf([live(key(1, 1)), live(key(2, 1))]).encoded()
        var badState = good
        badState[3 + 24] = 2
        var badClass = good
        badClass[3 + 25] = 0x07
        var unsorted = TreeNode.leaf([live(key(2, 1)), live(key(1, 1))]).encoded()
        let duplicate = TreeNode.leaf([live(key(1, 1)), live(key(1, 1))]).encoded()
        var badLevel = good
        badLevel[0] = 6
        let cases: [(String, [UInt8], Bool)] = [
            ("state 2", badState, false),
            ("protection class 7", badClass, false),
            ("keys not ascending", unsorted, false),
            ("one key twice", duplicate, false),
            ("level 6", badLevel, false),
            ("a byte after the entries", good + [0], false),
            ("an entry cut short", Array(good.dropLast()), false),
            ("an empty leaf that is not the top node", TreeNode.leaf([]).encoded(), false),
            ("an empty interior node", [1, 0, 0], true),
            ("larger than 64 KiB", TreeNode.leaf((0..<1_338).map { live(key(UInt64($0), 1)) }).encoded(), true),
        ]
        for (what, bytes, isTop) in cases {
            #expect(throws: VaultFormatError(.indexCorrupt), "\(what)") {
                try TreeNode.decode(bytes, scope: .master, isTop: isTop)
            }
        }
        unsorted = TreeNode.interior(level: 1, children: [(key(2, 1), reference), (key(1, 1), reference)]).encoded()
        #expect(throws: VaultFormatError(.indexCorrupt)) { try TreeNode.decode(unsorted, scope: .master, isTop: true) }
    }
}
