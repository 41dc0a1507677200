// vault: format-3 files taken apart and committed again, for the fixtures of Fixtures/v3.

import VaultFormat

/// The keys a fixture needs to write a format-3 commit that readers accept, derived here from
/// the master key by the formulas of Spec/format-v3.md §2.3 (not through the library's key
/// hierarchy), or the subset a holder of `BK` alone has.
struct Format3Keys {
    let vaultID: [UInt8]
    /// `HK`, the commit slots' MAC key.
    let header: SecretBytes
    /// `IK`, which seals the root and the tree nodes.
    let index: SecretBytes
    /// `SAK` of each scope whose key is held (§7.1).
    let scopes: [ScopeID: SecretBytes]

    /// The keys of a holder of `MK` of a vault whose access groups are `groups` (domain to name).
    init(master: MasterKey, vaultID: [UInt8], groups: [UInt8: String] = [:]) {
        let base = BLAKE2b.deriveKey(from: master.secret, id: 1, context: "VLTbase_")
        self.vaultID = vaultID
        header = BLAKE2b.deriveKey(from: base, id: 1, context: "VLTheadr")
        index = BLAKE2b.deriveKey(from: base, id: 2, context: "VLTindex")
        var scopes: [ScopeID: SecretBytes] = [
            .master: BLAKE2b.deriveKey(from: master.secret, id: 8, context: "VLT3scop"),
            .base: BLAKE2b.deriveKey(from: base, id: 8, context: "VLT3scop"),
        ]
        for (domain, name) in groups {
            let parent = BLAKE2b.deriveKey(from: master.secret, id: 256 + UInt64(domain), context: "VLTgroup")
            let groupKey = SecretBytes(bytes: BLAKE2b.hash(Array("VLT2gkey".utf8) + Array(name.utf8), key: parent))
            scopes[.group(domain)] = BLAKE2b.deriveKey(from: groupKey, id: 8, context: "VLT3scop")
        }
        self.scopes = scopes
    }

    private init(vaultID: [UInt8], header: SecretBytes, index: SecretBytes, scopes: [ScopeID: SecretBytes]) {
        self.vaultID = vaultID
        self.header = header
        self.index = index
        self.scopes = scopes
    }

    /// What a holder of `BK` alone holds (a scope-1 keyslot): `HK`, `IK` and the base scope's key.
    var baseHolder: Format3Keys {
        Format3Keys(vaultID: vaultID, header: header, index: index, scopes: [.base: scopes[.base]!])
    }
}

/// Little-endian reading and writing of the fixed-size integers of the format.
enum LE {
    static func read(_ bytes: some Collection<UInt8>, at offset: Int, size: Int) -> UInt64 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        var value: UInt64 = 0
        for shift in 0..<size {
            value |= UInt64(bytes[bytes.index(start, offsetBy: shift)]) << (8 * UInt64(shift))
        }
        return value
    }

    static func bytes(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func reference(_ bytes: some Collection<UInt8>, at offset: Int) -> ChunkReference {
        let start = bytes.index(bytes.startIndex, offsetBy: offset + 12)
        return ChunkReference(
            offset: read(bytes, at: offset, size: 8),
            length: UInt32(read(bytes, at: offset + 8, size: 4)),
            hash: Array(bytes[start..<bytes.index(start, offsetBy: 32)])
        )
    }

    static func encode(_ reference: ChunkReference) -> [UInt8] {
        bytes(reference.offset, size: 8) + bytes(UInt64(reference.length), size: 4) + reference.hash
    }
}

/// One commit slot's fields as they stand (Spec/format-v3.md §4), every one settable, so that a
/// fixture can write a slot that breaks exactly one rule.
struct RawSlot {
    var magic = VaultHeader.magic
    var major: UInt16 = 3
    var minor: UInt16 = 0
    var slotLength: UInt32 = 512
    var generation: UInt64
    var commitStart: UInt64
    var committedLength: UInt64
    var commitHash: [UInt8]
    var header: ChunkReference
    var root: ChunkReference
    var index: UInt8
    var reserved = [UInt8](repeating: 0, count: 287)
    /// The MAC as read; kept by a writer without `HK`.
    var mac = [UInt8](repeating: 0, count: 32)

    init(_ bytes: ArraySlice<UInt8>) {
        let slot = Array(bytes)
        magic = Array(slot[0..<8])
        major = UInt16(LE.read(slot, at: 8, size: 2))
        minor = UInt16(LE.read(slot, at: 10, size: 2))
        slotLength = UInt32(LE.read(slot, at: 12, size: 4))
        generation = LE.read(slot, at: 16, size: 8)
        commitStart = LE.read(slot, at: 24, size: 8)
        committedLength = LE.read(slot, at: 32, size: 8)
        commitHash = Array(slot[40..<72])
        header = LE.reference(slot, at: 72)
        root = LE.reference(slot, at: 116)
        index = slot[160]
        reserved = Array(slot[161..<448])
        mac = Array(slot[480..<512])
    }

    /// Bytes 0 to 447, which the checksum covers.
    var body: [UInt8] {
        var out = magic + LE.bytes(UInt64(major), size: 2) + LE.bytes(UInt64(minor), size: 2)
        out += LE.bytes(UInt64(slotLength), size: 4) + LE.bytes(generation, size: 8)
        out += LE.bytes(commitStart, size: 8) + LE.bytes(committedLength, size: 8) + commitHash
        out += LE.encode(header) + LE.encode(root) + [index] + reserved
        precondition(out.count == 448, "a slot's checked bytes are 448")
        return out
    }

    /// The 512 bytes: the body, its checksum, and the MAC under `key` (or the MAC as read, for a
    /// writer without `HK`).
    func encoded(macKey key: SecretBytes?) -> [UInt8] {
        let checked = body + BLAKE2b.hash(body, length: 32)
        return checked + (key.map { BLAKE2b.hash(checked, key: $0, length: 32) } ?? mac)
    }
}

/// One scope's entry of the root (§6.1), every field settable.
struct RawScope {
    var kind: UInt8
    var domain: UInt8
    var counter: UInt64
    var tree: ChunkReference
    var liveCount: UInt32
    var deletedCount: UInt32
    var tag: [UInt8]

    var scope: ScopeID? { ScopeID(kind: kind, domain: domain) }

    var encoded: [UInt8] {
        [kind, domain] + LE.bytes(counter, size: 8) + LE.encode(tree) + LE.bytes(UInt64(liveCount), size: 4)
            + LE.bytes(UInt64(deletedCount), size: 4) + tag
    }

    /// The tag of §7.1 under `key`; `groupsHash` counts for the master scope only.
    func computedTag(key: SecretBytes, vaultID: [UInt8], groupsHash: [UInt8]) -> [UInt8] {
        var message = Array("VLT3scop".utf8) + vaultID + [kind, domain] + LE.bytes(counter, size: 8) + tree.hash
        message += LE.bytes(UInt64(liveCount), size: 4) + LE.bytes(UInt64(deletedCount), size: 4)
        if kind == 0 && domain == 0 { message += groupsHash }
        return BLAKE2b.hash(message, key: key, length: 32)
    }
}

/// The root's plaintext (§6.1), every field settable.
struct RawRoot {
    var liveBytes: UInt64
    var scopes: [RawScope]
    /// `scopeCount` as written; by default the number of scopes.
    var scopeCount: UInt8?
    /// Bytes after the last scope entry (none in a valid root).
    var trailing: [UInt8] = []

    init(plaintext: [UInt8]) {
        liveBytes = LE.read(plaintext, at: 0, size: 8)
        let count = Int(plaintext[8])
        scopes = (0..<count).map { index in
            let at = 9 + 94 * index
            return RawScope(
                kind: plaintext[at],
                domain: plaintext[at + 1],
                counter: LE.read(plaintext, at: at + 2, size: 8),
                tree: LE.reference(plaintext, at: at + 10),
                liveCount: UInt32(LE.read(plaintext, at: at + 54, size: 4)),
                deletedCount: UInt32(LE.read(plaintext, at: at + 58, size: 4)),
                tag: Array(plaintext[(at + 62)..<(at + 94)])
            )
        }
    }

    var plaintext: [UInt8] {
        LE.bytes(liveBytes, size: 8) + [scopeCount ?? UInt8(scopes.count)] + scopes.flatMap(\.encoded) + trailing
    }

    /// The length of the root chunk this plaintext makes: nonce, plaintext, tag.
    var chunkLength: Int { 24 + plaintext.count + 16 }
}

/// A format-3 file opened with raw keys: its current commit's slot, header chunk and root, its
/// trees read node by node, and a commit on top of it in the making. Only what the fixtures
/// need; it checks nothing a reader checks, so a fixture can write any defect.
struct Format3Image {
    /// The file up to the current commit's end (the uncommitted tail cut, as a writer cuts it).
    private(set) var file: [UInt8]
    let keys: Format3Keys
    let random: SeededRandom
    /// The current slot's position, 0 or 1.
    let position: Int
    /// The current slot.
    let slot: RawSlot
    /// The header chunk the next commit names (the current one until a fixture changes it).
    var headerChunk: [UInt8]
    /// The root the next commit writes (the current one until a fixture changes it).
    var root: RawRoot
    /// Bytes the next commit appends after ``file``.
    private(set) var appended: [UInt8] = []
    /// The header chunk already appended for the next commit, when a fixture placed it early.
    private var appendedHeader: ChunkReference?
    /// Trees a fixture replaced: their node references and entries, so that ``liveBytes`` needs
    /// not read nodes a fixture made malformed.
    private var replaced: [ScopeID: (nodes: [ChunkReference], entries: [TreeEntry])] = [:]

    /// Opens the newest well-formed, complete slot of `file` and its root.
    init(_ file: [UInt8], keys: Format3Keys, random: SeededRandom) {
        var best: (Int, RawSlot)?
        for position in 0..<2 {
            let bytes = file[(position * 512)..<(position * 512 + 512)]
            guard BLAKE2b.hash(Array(bytes.prefix(448)), length: 32) == Array(bytes.dropFirst(448).prefix(32)) else {
                continue
            }
            let slot = RawSlot(bytes)
            guard slot.committedLength <= UInt64(file.count),
                BLAKE2b.hash(Array(file[Int(slot.commitStart)..<Int(slot.committedLength)]), length: 32)
                    == slot.commitHash
            else { continue }
            if best.map({ $0.1.generation < slot.generation }) ?? true { best = (position, slot) }
        }
        let (position, slot) = best!
        self.file = Array(file.prefix(Int(slot.committedLength)))
        self.keys = keys
        self.random = random
        self.position = position
        self.slot = slot
        headerChunk = Array(file[Int(slot.header.offset)..<Int(slot.header.offset) + Int(slot.header.length)])
        let chunk = Array(file[Int(slot.root.offset)..<Int(slot.root.offset) + Int(slot.root.length)])
        let opened = XChaCha20Poly1305.open(
            chunk[24...],
            using: ClassKey(secret: keys.index),
            nonce: chunk[..<24],
            authenticating: Self.rootAssociatedData(keys.vaultID, slot.generation, slot.header.hash)
        )
        root = RawRoot(plaintext: opened!)
    }

    static func rootAssociatedData(_ vaultID: [UInt8], _ generation: UInt64, _ headerHash: [UInt8]) -> [UInt8] {
        Array("VLT3root".utf8) + vaultID + LE.bytes(generation, size: 8) + headerHash
    }

    static func nodeAssociatedData(_ vaultID: [UInt8], _ scope: ScopeID) -> [UInt8] {
        Array("VLT3node".utf8) + vaultID + scope.bytes
    }

    // MARK: - Reading

    /// The bytes of `reference`, committed or appended.
    func bytes(_ offset: UInt64, _ count: Int) -> [UInt8] {
        let whole = file + appended
        return Array(whole[Int(offset)..<Int(offset) + count])
    }

    /// The plaintext of the node `reference` names in `scope`'s tree.
    func nodePlaintext(_ reference: ChunkReference, scope: ScopeID) -> [UInt8] {
        let chunk = bytes(reference.offset, Int(reference.length))
        return XChaCha20Poly1305.open(
            chunk[24...],
            using: ClassKey(secret: keys.index),
            nonce: chunk[..<24],
            authenticating: Self.nodeAssociatedData(keys.vaultID, scope)
        )!
    }

    func node(_ reference: ChunkReference, scope: ScopeID) -> TreeNode {
        try! TreeNode.decode(nodePlaintext(reference, scope: scope), scope: scope, isTop: true)
    }

    /// The root's entry of `scope`.
    func state(_ scope: ScopeID) -> RawScope { root.scopes.first { $0.scope == scope }! }

    /// Every entry of `scope`'s tree, in key order.
    func entries(_ scope: ScopeID) -> [TreeEntry] { entries(under: state(scope).tree, scope: scope) }

    func entries(under reference: ChunkReference, scope: ScopeID) -> [TreeEntry] {
        switch node(reference, scope: scope) {
        case .leaf(let entries): entries
        case .interior(_, let children): children.flatMap { entries(under: $0.child, scope: scope) }
        }
    }

    /// Every node reference of `scope`'s tree, the top first.
    func nodeReferences(under reference: ChunkReference, scope: ScopeID) -> [ChunkReference] {
        guard case .interior(_, let children) = node(reference, scope: scope) else { return [reference] }
        return [reference] + children.flatMap { nodeReferences(under: $0.child, scope: scope) }
    }

    /// `groupsHash` of the header chunk's access-group fields (§7.1).
    var groupsHash: [UInt8] {
        var message: [UInt8] = []
        for (type, value) in Self.fields(of: headerChunk) where type == 0x8006 {
            message += [value[0]] + BLAKE2b.hash(value, length: 32)
        }
        return BLAKE2b.hash(message, length: 32)
    }

    /// The TLV fields of a header chunk, in order.
    static func fields(of chunk: [UInt8]) -> [(type: UInt16, value: [UInt8])] {
        var fields: [(UInt16, [UInt8])] = []
        var offset = 0
        while offset + 6 <= chunk.count {
            let size = Int(LE.read(chunk, at: offset + 2, size: 4))
            fields.append(
                (UInt16(LE.read(chunk, at: offset, size: 2)), Array(chunk[(offset + 6)..<(offset + 6 + size)]))
            )
            offset += 6 + size
        }
        return fields
    }

    /// A header chunk of `fields`, in order.
    static func chunk(of fields: [(type: UInt16, value: [UInt8])]) -> [UInt8] {
        fields.flatMap { LE.bytes(UInt64($0.type), size: 2) + LE.bytes(UInt64($0.value.count), size: 4) + $0.value }
    }

    /// The length of a live entry's record (§12.1).
    static func recordLength(_ entry: TreeEntry.LiveEntry) -> Int {
        func pad(_ length: Int) -> Int {
            guard length > 4_096 else { return 32 * ((max(length, 1) + 31) / 32) }
            let e = Int.bitWidth - 1 - length.leadingZeroBitCount
            let z = e - (Int.bitWidth - e.leadingZeroBitCount)
            return ((length + (1 << z) - 1) >> z) << z
        }
        return 24 + (entry.protectionClass.isDeviceBound ? 16 : 0) + pad(entry.secretLength) + 16
            + pad(entry.attributesLength) + 16
    }

    /// The total length of the chunks the next commit reaches: the header chunk, the root, every
    /// node of every tree and every live record (R3-FILE-2).
    var liveBytes: UInt64 {
        var total = headerChunk.count + root.chunkLength
        for state in root.scopes {
            guard let scope = state.scope else { continue }
            let (nodes, entries) = replaced[scope] ?? (nodeReferences(under: state.tree, scope: scope), entries(scope))
            total += nodes.reduce(0) { $0 + Int($1.length) }
            for case .live(let entry) in entries { total += Self.recordLength(entry) }
        }
        return UInt64(total)
    }

    // MARK: - Writing

    /// Appends `chunk` after the committed bytes (and what this commit appended so far).
    mutating func append(_ chunk: [UInt8]) -> ChunkReference {
        let reference = ChunkReference(
            offset: UInt64(file.count + appended.count),
            length: UInt32(chunk.count),
            hash: BLAKE2b.hash(chunk, length: 32)
        )
        appended += chunk
        return reference
    }

    /// Seals `plaintext` as a node of `scope`'s tree and appends it.
    mutating func appendNode(_ plaintext: [UInt8], scope: ScopeID) -> ChunkReference {
        let nonce = random.bytes(24)
        let sealed = XChaCha20Poly1305.seal(
            plaintext,
            using: ClassKey(secret: keys.index),
            nonce: nonce,
            authenticating: Self.nodeAssociatedData(keys.vaultID, scope)
        )
        return append(nonce + sealed)
    }

    /// Appends a tree of `scope` whose leaves hold `leaves` (each non-empty but a lone leaf): one
    /// leaf as the top, or an interior node of level 1 over several; makes it the scope's tree.
    mutating func replaceTree(_ scope: ScopeID, leaves: [[TreeEntry]]) {
        let references = leaves.map { appendNode(TreeNode.leaf($0).encoded(), scope: scope) }
        guard references.count > 1 else {
            setTree(scope, top: references[0], nodes: references, entries: leaves.flatMap { $0 })
            return
        }
        let children = zip(leaves, references).map { (firstKey: $0.0[0].key, child: $0.1) }
        let top = appendNode(TreeNode.interior(level: 1, children: children).encoded(), scope: scope)
        setTree(scope, top: top, nodes: [top] + references, entries: leaves.flatMap { $0 })
    }

    /// Makes `top` the tree of `scope` in the next root: its nodes are `nodes`, its entries
    /// `entries` (for the counts and ``liveBytes``), and its counter is raised (§7.2).
    mutating func setTree(_ scope: ScopeID, top: ChunkReference, nodes: [ChunkReference], entries: [TreeEntry]) {
        let index = root.scopes.firstIndex { $0.scope == scope }!
        root.scopes[index].tree = top
        root.scopes[index].liveCount = UInt32(entries.filter(\.isLive).count)
        root.scopes[index].deletedCount = UInt32(entries.count - entries.filter(\.isLive).count)
        root.scopes[index].counter += 1
        replaced[scope] = (nodes, entries)
    }

    /// Appends the header chunk now (before the commit appends its root), so that a fixture knows
    /// where its bytes stand.
    mutating func appendHeader() -> ChunkReference {
        let reference = append(headerChunk)
        appendedHeader = reference
        return reference
    }

    /// Where the next commit's slot goes.
    enum SlotPlace {
        /// The other slot, with the next generation: an in-place commit (§9.1).
        case other
        /// Over the current slot, same generation: an edit of the commit itself.
        case same
    }

    /// Writes the next commit: the header chunk when it changed, the root sealed under `IK`, and
    /// the slot. `retag` scopes get the tag their key computes (a holder without a scope's key
    /// leaves its tag as it was); `liveBytes` is computed unless given; the slot's MAC is computed
    /// with `HK` when `mac`, else kept as read. `keepRoot` keeps the current root (a writer
    /// without `IK`); `damageRoot` flips a bit of the sealed root. `edit` changes the slot's
    /// fields last.
    ///
    /// - Returns: The whole file after the commit.
    mutating func commit(
        retag: [ScopeID] = [],
        liveBytes: UInt64? = nil,
        place: SlotPlace = .other,
        mac: Bool = true,
        keepRoot: Bool = false,
        damageRoot: Bool = false,
        edit: (inout RawSlot) -> Void = { _ in }
    ) -> [UInt8] {
        var header = slot.header
        if let appendedHeader {
            header = appendedHeader
        } else if BLAKE2b.hash(headerChunk, length: 32) != slot.header.hash {
            header = append(headerChunk)
        }
        let groupsHash = self.groupsHash
        for (index, state) in root.scopes.enumerated() where state.scope.map(retag.contains) ?? false {
            root.scopes[index].tag = state.computedTag(
                key: keys.scopes[state.scope!]!,
                vaultID: keys.vaultID,
                groupsHash: groupsHash
            )
        }
        root.liveBytes = liveBytes ?? self.liveBytes
        var next = slot
        let at = (place == .other ? 1 - position : position) * 512
        if place == .other {
            next.generation += 1
            next.index = UInt8(1 - position)
        }
        if !keepRoot {
            let nonce = random.bytes(24)
            var sealed = XChaCha20Poly1305.seal(
                root.plaintext,
                using: ClassKey(secret: keys.index),
                nonce: nonce,
                authenticating: Self.rootAssociatedData(keys.vaultID, next.generation, header.hash)
            )
            if damageRoot { sealed[sealed.count / 2] ^= 0x01 }
            next.root = append(nonce + sealed)
        }
        next.header = header
        next.commitStart = UInt64(file.count)
        next.committedLength = UInt64(file.count + appended.count)
        next.commitHash = BLAKE2b.hash(appended, length: 32)
        edit(&next)
        var out = file + appended
        out.replaceSubrange(at..<at + 512, with: next.encoded(macKey: mac ? keys.header : nil))
        return out
    }

    /// Rewrites the slot at `position` of `file`: `edit` changes its fields, the checksum is
    /// computed again, and the MAC under `macKey` (without it, the MAC stays as read: no key).
    static func editingSlot(
        _ file: [UInt8],
        at position: Int,
        macKey: SecretBytes? = nil,
        _ edit: (inout RawSlot) -> Void
    ) -> [UInt8] {
        var slot = RawSlot(file[(position * 512)..<(position * 512 + 512)])
        edit(&slot)
        let bytes = slot.encoded(macKey: macKey)
        var out = file
        out.replaceSubrange((position * 512)..<(position * 512 + 512), with: bytes)
        return out
    }
}

extension TreeEntry {
    /// The entry's bytes in a leaf (§6.3).
    var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }
}
