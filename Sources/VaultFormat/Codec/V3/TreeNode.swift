// vault: format-3 index nodes, their entries and the references between chunks.

/// A byte range of a format-3 heap and the BLAKE2b-256 of its bytes.
///
/// Spec: Spec/format-v3.md, §3 (design draft).
package struct ChunkReference: Hashable, Sendable {
    /// Encoded size: offset, length, hash.
    package static let byteCount = 44
    /// Where the chunk starts, from the start of the file.
    package var offset: UInt64
    /// The chunk's length.
    package var length: UInt32
    /// `BLAKE2b(32, "", chunk bytes)`.
    package var hash: [UInt8]

    package init(offset: UInt64, length: UInt32, hash: [UInt8]) {
        precondition(hash.count == 32, "a chunk hash is 32 bytes")
        self.offset = offset
        self.length = length
        self.hash = hash
    }

    package func encode(into writer: inout ByteWriter) {
        writer.u64(offset)
        writer.u32(length)
        writer.append(hash)
    }

    package static func decode(from reader: inout ByteReader) throws(VaultFormatError) -> ChunkReference {
        let offset = try reader.u64("a chunk offset")
        let length = try reader.u32("a chunk length")
        return ChunkReference(offset: offset, length: length, hash: Array(try reader.read(32, "a chunk hash")))
    }
}

/// Which key level seals a scope's records, and so which key authenticates its tree.
///
/// Spec: Spec/format-v3.md, §7.1 (design draft).
package struct ScopeID: Hashable, Comparable, Sendable {
    /// Domain 0, the classes whose keys derive from `MK`.
    package static let master = ScopeID(unchecked: 0, domain: 0)
    /// Domain 0, `always` and `alwaysThisDeviceOnly`, whose keys derive from `BK`.
    package static let base = ScopeID(unchecked: 1, domain: 0)
    /// The key domain of access group `d` (1 to 32).
    package static func group(_ domain: UInt8) -> ScopeID { ScopeID(unchecked: 2, domain: domain) }

    /// `0` master, `1` base, `2` group.
    package let kind: UInt8
    /// `0`, or the group's domain.
    package let domain: UInt8

    /// The scope that a record of `protectionClass` sealed in key `domain` belongs to (R3-ENT-1).
    package init(protectionClass: ProtectionClass, domain: UInt8) {
        if domain != 0 {
            self = .group(domain)
        } else {
            self = protectionClass == .always || protectionClass == .alwaysThisDeviceOnly ? .base : .master
        }
    }

    /// A scope from its two bytes; `nil` unless master `(0, 0)`, base `(1, 0)` or a group `(2, d)`
    /// with `d` from 1 to 32.
    package init?(kind: UInt8, domain: UInt8) {
        switch (kind, domain) {
        case (0, 0), (1, 0), (2, 1...32): self.init(unchecked: kind, domain: domain)
        default: return nil
        }
    }

    private init(unchecked kind: UInt8, domain: UInt8) {
        self.kind = kind
        self.domain = domain
    }

    /// Whether this is an access group's scope.
    package var isGroup: Bool { kind == 2 }

    /// The two bytes of the scope ID, as the node and tag associated data name them.
    package var bytes: [UInt8] { [kind, domain] }

    package static func < (lhs: ScopeID, rhs: ScopeID) -> Bool { (lhs.kind, lhs.domain) < (rhs.kind, rhs.domain) }
}

/// The 24-byte key a tree is sorted by: `tag || itemID` (format-v1.md R-IDX-2).
package struct TreeKey: Hashable, Comparable, Sendable {
    package static let byteCount = 24
    /// The lookup tag, read big-endian so that numeric order is byte order.
    package var tag: UInt64
    package var itemID: ItemID

    package init(tag: UInt64, itemID: ItemID) {
        self.tag = tag
        self.itemID = itemID
    }

    package static func < (lhs: TreeKey, rhs: TreeKey) -> Bool { (lhs.tag, lhs.itemID) < (rhs.tag, rhs.itemID) }

    package func encode(into writer: inout ByteWriter) {
        writer.u64BigEndian(tag)
        writer.u64BigEndian(itemID.high)
        writer.u64BigEndian(itemID.low)
    }

    package static func decode(from reader: inout ByteReader) throws(VaultFormatError) -> TreeKey {
        let tag = try reader.u64BigEndian("a lookup tag")
        let high = try reader.u64BigEndian("an item ID")
        return TreeKey(tag: tag, itemID: ItemID(high: high, low: try reader.u64BigEndian("an item ID")))
    }
}

/// One entry of a format-3 leaf: a live item or a deletion.
///
/// Spec: Spec/format-v3.md, §6.3 (design draft).
package enum TreeEntry: Hashable, Sendable {
    /// A live item: its classes, lengths, where its record is, and its history.
    case live(LiveEntry)
    /// A deleted item: when, and its history (whose current event is the deletion).
    case deleted(key: TreeKey, deletedAt: Int64, history: EventHistory)

    package struct LiveEntry: Hashable, Sendable {
        package var key: TreeKey
        package var itemClass: ItemClass
        package var protectionClass: ProtectionClass
        package var attributesLength: Int
        package var secretLength: Int
        /// Where the record starts, from the start of the file.
        package var recordOffset: UInt64
        /// The item's history; its current event is the record's version.
        package var history: EventHistory
    }

    package var key: TreeKey {
        switch self {
        case .live(let entry): entry.key
        case .deleted(let key, _, _): key
        }
    }

    package var history: EventHistory {
        switch self {
        case .live(let entry): entry.history
        case .deleted(_, _, let history): history
        }
    }

    package func encode(into writer: inout ByteWriter) {
        key.encode(into: &writer)
        switch self {
        case .live(let entry):
            writer.u8(0)
            writer.u8(entry.itemClass.rawValue << 4 | entry.protectionClass.rawValue)
            writer.u16(UInt16(entry.attributesLength))
            writer.u32(UInt32(entry.secretLength))
            writer.u64(entry.recordOffset)
            entry.history.encode(into: &writer)
        case .deleted(_, let deletedAt, let history):
            writer.u8(1)
            writer.i64(deletedAt)
            history.encode(into: &writer)
        }
    }

    /// Reads an entry of the tree of `scope`, with the checks of R3-ENT-1 and R3-EV-4.
    package static func decode(from reader: inout ByteReader, scope: ScopeID) throws(VaultFormatError)
        -> TreeEntry
    {
        let key = try TreeKey.decode(from: &reader)
        switch try reader.u8("an entry's state") {
        case 0:
            let classByte = try reader.u8("an entry's class byte")
            guard let itemClass = ItemClass(rawValue: classByte >> 4),
                let protectionClass = ProtectionClass(rawValue: classByte & 0x0F)
            else { throw VaultFormatError(.indexCorrupt, "an entry's class byte is out of range") }
            guard ScopeID(protectionClass: protectionClass, domain: scope.domain) == scope else {
                throw VaultFormatError(.indexCorrupt, "an entry of class \(protectionClass) is in the wrong scope")
            }
            let attributesLength = Int(try reader.u16("an entry's attributes length"))
            let secretLength = Int(try reader.u32("an entry's secret length"))
            guard secretLength <= RecordCodec.maximumSecretByteCount else {
                throw VaultFormatError(.indexCorrupt, "an entry's secret is longer than 16 MiB")
            }
            let recordOffset = try reader.u64("an entry's record offset")
            return .live(
                LiveEntry(
                    key: key,
                    itemClass: itemClass,
                    protectionClass: protectionClass,
                    attributesLength: attributesLength,
                    secretLength: secretLength,
                    recordOffset: recordOffset,
                    history: try EventHistory.decode(from: &reader)
                )
            )
        case 1:
            let deletedAt = try reader.i64("a deletion's time")
            return .deleted(key: key, deletedAt: deletedAt, history: try EventHistory.decode(from: &reader))
        case let state:
            throw VaultFormatError(.indexCorrupt, "an entry's state is \(state) (0 live, 1 deleted)")
        }
    }
}

/// A node of a scope's tree, as its plaintext holds it.
///
/// Spec: Spec/format-v3.md, §6.2 (design draft).
package enum TreeNode: Hashable, Sendable {
    /// The most bytes a node's plaintext may have (R3-TREE-1).
    package static let maximumPlaintextByteCount = 65_536
    /// The highest level a node may have (R3-TREE-2).
    package static let maximumLevel: UInt8 = 5

    case leaf([TreeEntry])
    /// Level 1 to 5: each child's first key and reference, in key order.
    case interior(level: UInt8, children: [(firstKey: TreeKey, child: ChunkReference)])

    package var level: UInt8 {
        switch self {
        case .leaf: 0
        case .interior(let level, _): level
        }
    }

    /// The key of the node's first entry or child; `nil` for an empty leaf.
    package var firstKey: TreeKey? {
        switch self {
        case .leaf(let entries): entries.first?.key
        case .interior(_, let children): children.first?.firstKey
        }
    }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: ScopeTree.targetNodeByteCount + 128)
        writer.u8(level)
        switch self {
        case .leaf(let entries):
            writer.u16(UInt16(entries.count))
            for entry in entries { entry.encode(into: &writer) }
        case .interior(_, let children):
            writer.u16(UInt16(children.count))
            for (firstKey, child) in children {
                firstKey.encode(into: &writer)
                child.encode(into: &writer)
            }
        }
        return writer.bytes
    }

    /// Reads a node of `scope`'s tree from its plaintext, with the checks that need only the node:
    /// size (R3-TREE-1), level and count (R3-TREE-2), key order inside it (R3-TREE-3), entries
    /// (R3-ENT-1, R3-EV-4). `isTop`: the top node, the only one that may be an empty leaf.
    package static func decode(_ plaintext: [UInt8], scope: ScopeID, isTop: Bool) throws(VaultFormatError)
        -> TreeNode
    {
        guard plaintext.count <= maximumPlaintextByteCount else {
            throw VaultFormatError(.indexCorrupt, "a node is larger than 64 KiB")
        }
        var reader = ByteReader(plaintext, failure: .indexCorrupt)
        let level = try reader.u8("a node's level")
        guard level <= maximumLevel else { throw VaultFormatError(.indexCorrupt, "a node's level is \(level)") }
        let count = Int(try reader.u16("a node's count"))
        guard count > 0 || (isTop && level == 0) else {
            throw VaultFormatError(.indexCorrupt, "a node other than an empty top leaf has no entries")
        }
        let node: TreeNode
        if level == 0 {
            var entries: [TreeEntry] = []
            entries.reserveCapacity(count)
            var last: TreeKey?
            var ascending = true
            for _ in 0..<count {
                let entry = try TreeEntry.decode(from: &reader, scope: scope)
                // Checked as the entries are read, without pairs of entries copied to compare them.
                if let last, !(last < entry.key) { ascending = false }
                last = entry.key
                entries.append(entry)
            }
            guard ascending else { throw VaultFormatError(.indexCorrupt, "a leaf's keys are not strictly ascending") }
            node = .leaf(entries)
        } else {
            var children: [(firstKey: TreeKey, child: ChunkReference)] = []
            children.reserveCapacity(count)
            for _ in 0..<count {
                let key = try TreeKey.decode(from: &reader)
                children.append((key, try ChunkReference.decode(from: &reader)))
            }
            guard children.indices.dropFirst().allSatisfy({ children[$0 - 1].firstKey < children[$0].firstKey }) else {
                throw VaultFormatError(.indexCorrupt, "a node's child keys are not strictly ascending")
            }
            node = .interior(level: level, children: children)
        }
        guard reader.isAtEnd else { throw VaultFormatError(.indexCorrupt, "a node has bytes after its entries") }
        return node
    }

    package static func == (lhs: TreeNode, rhs: TreeNode) -> Bool { lhs.encoded() == rhs.encoded() }

    package func hash(into hasher: inout Hasher) { hasher.combine(encoded()) }
}
