// vault: reading and changing one scope's tree of sealed nodes, path by path.

/// Where a scope tree's chunks are read from and appended to.
package protocol ChunkStore {
    /// The bytes of the chunk `reference` names, checked against its hash (R3-FILE-1).
    func read(_ reference: ChunkReference) throws -> [UInt8]
    /// Appends a chunk and returns its reference.
    mutating func append(_ chunk: [UInt8]) -> ChunkReference
}

/// One scope's B+-tree: lookups read one node per level, and a change appends only the nodes on
/// the paths to the entries it changes.
///
/// Spec: Spec/format-v3.md, §6.2 (R3-TREE-1 to R3-TREE-4; design draft).
package struct ScopeTree {
    /// A writer keeps node plaintexts at most this long where it can (R3-TREE-4).
    package static let targetNodeByteCount = 4_096

    package let scope: ScopeID
    let keys: VaultKeys
    let vaultID: [UInt8]

    init(scope: ScopeID, keys: VaultKeys, vaultID: [UInt8]) {
        self.scope = scope
        self.keys = keys
        self.vaultID = vaultID
    }

    private var associatedData: [UInt8] { Array("VLT3node".utf8) + vaultID + scope.bytes }

    // MARK: - Nodes

    /// Seals `node` under `IK` with a fresh nonce and appends it.
    func append(_ node: TreeNode, to store: inout some ChunkStore, random: some RandomSource) -> ChunkReference {
        let chunk = SealedChunk.seal(
            node.encoded(),
            using: keys.indexKey,
            authenticating: associatedData,
            random: random
        )
        return store.append(chunk)
    }

    /// Reads, opens and decodes one node (R3-TREE-1, R3-TREE-2's level rule against `level`).
    func node(
        _ reference: ChunkReference,
        level: UInt8?,
        isTop: Bool,
        in store: some ChunkStore
    ) throws -> TreeNode {
        let chunk = try store.read(reference)
        guard let plaintext = SealedChunk.open(chunk, using: keys.indexKey, authenticating: associatedData)
        else { throw VaultFormatError(.indexCorrupt, "a node of \(scope) does not open") }
        let node = try TreeNode.decode(plaintext, scope: scope, isTop: isTop)
        if let level, node.level != level {
            throw VaultFormatError(.indexCorrupt, "a node of \(scope) is at level \(node.level), not \(level)")
        }
        return node
    }

    /// A child, checked against its parent's entry for it (R3-TREE-2, R3-TREE-3).
    private func child(
        _ entry: (firstKey: TreeKey, child: ChunkReference),
        of level: UInt8,
        in store: some ChunkStore
    ) throws -> TreeNode {
        let node = try node(entry.child, level: level - 1, isTop: false, in: store)
        guard node.firstKey == entry.firstKey else {
            throw VaultFormatError(.indexCorrupt, "a node of \(scope) does not start with its parent's key for it")
        }
        return node
    }

    // MARK: - Reading

    /// The entries whose lookup tag is `tag`, reading one node per level (more only when equal
    /// tags span nodes).
    package func entries(withTag tag: UInt64, top: ChunkReference, in store: some ChunkStore)
        throws -> [TreeEntry]
    {
        var found: [TreeEntry] = []
        try collect(
            try node(top, level: nil, isTop: true, in: store),
            from: TreeKey(tag: tag, itemID: .zero),
            through: TreeKey(tag: tag, itemID: .max),
            into: &found,
            in: store
        )
        return found
    }

    /// Every entry of the tree, in key order, each node checked (R3-TREE-1 to R3-TREE-3), and the
    /// keys strictly ascending across the whole tree, read left to right (R3-TREE-3).
    package func allEntries(top: ChunkReference, in store: some ChunkStore) throws -> [TreeEntry] {
        var found: [TreeEntry] = []
        var nodes: [ChunkReference] = []
        try forEachEntry(top: top, in: store, visiting: &nodes) { found.append($0) }
        return found
    }

    /// The references of every node of the tree, the top first (then depth first), each node
    /// checked.
    package func nodeReferences(top: ChunkReference, in store: some ChunkStore) throws -> [ChunkReference] {
        var nodes: [ChunkReference] = []
        try forEachEntry(top: top, in: store, visiting: &nodes) { _ in }
        return nodes
    }

    /// Calls `body` with every entry of the tree in key order, as ``allEntries(top:in:)`` reads
    /// them (every node checked, keys strictly ascending across the whole tree), and appends the
    /// reference of every node read, the top first, to `nodes`.
    ///
    /// A scan of every entry (``Format3Store/contents()``) uses this rather than
    /// ``allEntries(top:in:)``: no array of every entry is built only to be read once.
    package func forEachEntry(
        top: ChunkReference,
        in store: some ChunkStore,
        visiting nodes: inout [ChunkReference],
        _ body: (TreeEntry) throws -> Void
    ) throws {
        var last: TreeKey?
        nodes.append(top)
        try scan(try node(top, level: nil, isTop: true, in: store), after: &last, visiting: &nodes, in: store, body)
    }

    private func scan(
        _ node: TreeNode,
        after last: inout TreeKey?,
        visiting nodes: inout [ChunkReference],
        in store: some ChunkStore,
        _ body: (TreeEntry) throws -> Void
    ) throws {
        switch node {
        case .leaf(let entries):
            for entry in entries {
                if let last, !(last < entry.key) {
                    throw VaultFormatError(.indexCorrupt, "the keys of \(scope) are not ascending across its nodes")
                }
                last = entry.key
                try body(entry)
            }
        case .interior(let level, let children):
            for entry in children {
                nodes.append(entry.child)
                try scan(try child(entry, of: level, in: store), after: &last, visiting: &nodes, in: store, body)
            }
        }
    }

    private func collect(
        _ node: TreeNode,
        from low: TreeKey,
        through high: TreeKey,
        into found: inout [TreeEntry],
        in store: some ChunkStore
    ) throws {
        switch node {
        case .leaf(let entries):
            found.append(contentsOf: entries.lazy.filter { low <= $0.key && $0.key <= high })
        case .interior(let level, let children):
            for (index, entry) in children.enumerated() {
                let next = index + 1 < children.count ? children[index + 1].firstKey : nil
                guard entry.firstKey <= high, next.map({ low < $0 }) ?? true else { continue }
                try collect(try child(entry, of: level, in: store), from: low, through: high, into: &found, in: store)
            }
        }
    }

    // MARK: - Writing

    /// A tree of `entries` (strictly ascending by key), appended node by node; returns its top.
    package func build(
        _ entries: [TreeEntry],
        into store: inout some ChunkStore,
        random: some RandomSource
    ) -> ChunkReference {
        let leaves = Self.packed(entries, byteCount: { entryByteCount($0) }).map { TreeNode.leaf($0) }
        var level = leaves.map {
            ($0.firstKey ?? TreeKey(tag: 0, itemID: .zero), append($0, to: &store, random: random))
        }
        if leaves.isEmpty { return append(.leaf([]), to: &store, random: random) }
        return top(of: &level, height: 1, into: &store, random: random)
    }

    /// Applies `changes` (an entry to insert or replace by its key, or `nil` to remove the entry
    /// with that key) to the tree whose top is `top`, appending only the nodes on the changed
    /// paths.
    ///
    /// - Returns: The new top; the nodes the new tree no longer reaches (waste, §9.3); and the
    ///   entries the changes replaced or removed, as the old tree held them.
    package func applying(
        _ changes: [TreeKey: TreeEntry?],
        to top: ChunkReference,
        in store: inout some ChunkStore,
        random: some RandomSource
    ) throws -> (top: ChunkReference, dropped: [ChunkReference], replaced: [TreeEntry]) {
        let root = try node(top, level: nil, isTop: true, in: store)
        let sorted = changes.sorted { $0.key < $1.key }
        var dropped: [ChunkReference] = []
        var replaced: [TreeEntry] = []
        var level = try rewrite(
            root,
            reference: top,
            changes: sorted[...],
            dropped: &dropped,
            replaced: &replaced,
            in: &store,
            random: random
        )
        if level.isEmpty { return (append(.leaf([]), to: &store, random: random), dropped, replaced) }
        return (self.top(of: &level, height: Int(root.level) + 1, into: &store, random: random), dropped, replaced)
    }

    /// The nodes that replace `node` after `changes`, which all fall in its key range: itself
    /// unchanged, none (emptied), or one or more new nodes of the same level.
    private func rewrite(
        _ node: TreeNode,
        reference: ChunkReference,
        changes: ArraySlice<(key: TreeKey, value: TreeEntry?)>,
        dropped: inout [ChunkReference],
        replaced: inout [TreeEntry],
        in store: inout some ChunkStore,
        random: some RandomSource
    ) throws -> [(TreeKey, ChunkReference)] {
        guard !changes.isEmpty else { return node.firstKey.map { [($0, reference)] } ?? [] }
        dropped.append(reference)
        switch node {
        case .leaf(let entries):
            // Both in key order (the leaf's entries are strictly ascending, R3-TREE-3; the changes
            // were sorted by `applying`): one merge, no dictionary and no sort.
            var merged: [TreeEntry] = []
            merged.reserveCapacity(entries.count + changes.count)
            var next = entries.startIndex
            for (key, value) in changes {
                while next < entries.endIndex, entries[next].key < key {
                    merged.append(entries[next])
                    next += 1
                }
                if next < entries.endIndex, entries[next].key == key {
                    replaced.append(entries[next])
                    next += 1
                }
                if let value { merged.append(value) }
            }
            merged.append(contentsOf: entries[next...])
            return Self.packed(merged, byteCount: { entryByteCount($0) }).map { chunk in
                (chunk[0].key, append(.leaf(chunk), to: &store, random: random))
            }
        case .interior(let level, let children):
            var kept: [(TreeKey, ChunkReference)] = []
            var rest = changes
            for (index, entry) in children.enumerated() {
                let next = index + 1 < children.count ? children[index + 1].firstKey : nil
                let mine = rest.prefix { change in next.map { change.key < $0 } ?? true }
                rest = rest.dropFirst(mine.count)
                if mine.isEmpty {
                    kept.append((entry.firstKey, entry.child))
                } else {
                    let child = try child(entry, of: level, in: store)
                    kept += try rewrite(
                        child,
                        reference: entry.child,
                        changes: mine,
                        dropped: &dropped,
                        replaced: &replaced,
                        in: &store,
                        random: random
                    )
                }
            }
            return Self.packed(kept, byteCount: { _ in TreeKey.byteCount + ChunkReference.byteCount }).map {
                chunk in
                (chunk[0].0, append(.interior(level: level, children: chunk), to: &store, random: random))
            }
        }
    }

    /// Adds interior levels over `level` (nodes of height `height`) until one node is left.
    private func top(
        of level: inout [(TreeKey, ChunkReference)],
        height: Int,
        into store: inout some ChunkStore,
        random: some RandomSource
    ) -> ChunkReference {
        var height = height
        while level.count > 1 {
            level = Self.packed(level, byteCount: { _ in TreeKey.byteCount + ChunkReference.byteCount }).map {
                chunk in
                (chunk[0].0, append(.interior(level: UInt8(height), children: chunk), to: &store, random: random))
            }
            height += 1
        }
        return level[0].1
    }

    private func entryByteCount(_ entry: TreeEntry) -> Int {
        TreeKey.byteCount + (entry.isLive ? 16 : 9) + entry.history.encodedByteCount
    }

    /// `items` cut into runs whose encoded size stays within the target (R3-TREE-4), each run
    /// non-empty.
    static func packed<T>(_ items: [T], byteCount: (T) -> Int) -> [[T]] {
        var runs: [[T]] = []
        var current: [T] = []
        var size = 3
        for item in items {
            let count = byteCount(item)
            if !current.isEmpty && size + count > targetNodeByteCount {
                runs.append(current)
                current = []
                size = 3
            }
            current.append(item)
            size += count
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }
}

extension TreeEntry {
    /// Whether this is a live item rather than a deletion.
    package var isLive: Bool {
        if case .live = self { return true }
        return false
    }
}

extension ItemID {
    /// The smallest and largest IDs, the bounds of a range of keys with one tag.
    static let zero = ItemID(bytes: [UInt8](repeating: 0, count: byteCount))
    static let max = ItemID(bytes: [UInt8](repeating: 0xFF, count: byteCount))
}
