// vault: the format-3 root, and the tags that let each scope's holders trust their tree.

/// One scope's entry of the root: its counter, its tree and the tag its key computes.
///
/// Spec: Spec/format-v3.md, §6.1 and §7.1 (R3-SCP-1 to R3-SCP-3; design draft).
package struct ScopeState: Hashable, Sendable {
    /// Encoded size.
    package static let byteCount = 94

    package var scope: ScopeID
    /// `max(counter + 1, now)` at each change of the scope (§7.2).
    package var counter: UInt64
    /// The scope's top node.
    package var tree: ChunkReference
    package var liveCount: UInt32
    package var deletedCount: UInt32
    /// `BLAKE2b(32, SAK, …)` over the fields above (R3-SCP-1).
    package var tag: [UInt8]

    /// The tag of these fields under `key` (R3-SCP-1): the master scope's also covers
    /// `groupsHash`, the header's access-group fields (R3-SCP-2).
    func expectedTag(key: KeyRef, vaultID: [UInt8], groupsHash: [UInt8]) -> [UInt8] {
        var message = ByteWriter()
        message.append(Array("VLT3scop".utf8))
        message.append(vaultID)
        message.append(scope.bytes)
        message.u64(counter)
        message.append(tree.hash)
        message.u32(liveCount)
        message.u32(deletedCount)
        if scope == .master { message.append(groupsHash) }
        return BLAKE2b.hash(message.bytes, key: key, length: 32)
    }

    func encode(into writer: inout ByteWriter) {
        writer.append(scope.bytes)
        writer.u64(counter)
        tree.encode(into: &writer)
        writer.u32(liveCount)
        writer.u32(deletedCount)
        writer.append(tag)
    }

    static func decode(from reader: inout ByteReader) throws(VaultFormatError) -> ScopeState {
        let kind = try reader.u8("a scope's kind")
        let domain = try reader.u8("a scope's domain")
        guard let scope = ScopeID(kind: kind, domain: domain) else {
            throw VaultFormatError(.indexCorrupt, "the root names scope (\(kind), \(domain))")
        }
        let counter = try reader.u64("a scope's counter")
        guard counter >= 1 else { throw VaultFormatError(.indexCorrupt, "a scope's counter is 0") }
        return ScopeState(
            scope: scope,
            counter: counter,
            tree: try ChunkReference.decode(from: &reader),
            liveCount: try reader.u32("a scope's live count"),
            deletedCount: try reader.u32("a scope's deletion count"),
            tag: Array(try reader.read(32, "a scope's tag"))
        )
    }
}

extension ScopeState {
    /// The scope's state with the tag `key` computes; `groupsHash` counts for the master scope only.
    init(
        scope: ScopeID,
        counter: UInt64,
        tree: ChunkReference,
        liveCount: UInt32,
        deletedCount: UInt32,
        key: KeyRef,
        vaultID: [UInt8],
        groupsHash: [UInt8]
    ) {
        self.init(
            scope: scope,
            counter: counter,
            tree: tree,
            liveCount: liveCount,
            deletedCount: deletedCount,
            tag: []
        )
        tag = expectedTag(key: key, vaultID: vaultID, groupsHash: groupsHash)
    }
}

/// The root of a format-3 commit: the total of live bytes and each scope's state.
///
/// Spec: Spec/format-v3.md, §6.1 (R3-ROOT-1; design draft).
package struct Root: Hashable, Sendable {
    /// The most items, and the most deletions, a vault holds (R-FLD-6's limit).
    package static let maximumEntryCount: UInt64 = 1_000_000

    package var liveBytes: UInt64
    /// Master, base, then one scope per access-group field in domain order.
    package var scopes: [ScopeState]

    /// `"VLT3root" || vaultID || LE64(generation) || headerHash`.
    static func associatedData(vaultID: [UInt8], generation: UInt64, headerHash: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(Array("VLT3root".utf8))
        writer.append(vaultID)
        writer.u64(generation)
        writer.append(headerHash)
        return writer.bytes
    }

    /// `BLAKE2b(32, "", LE8(d) || BLAKE2b(32, "", value) …)` over the access-group fields, in domain
    /// order (R3-SCP-2).
    package static func groupsHash(fields: [(domain: UInt8, value: [UInt8])]) -> [UInt8] {
        var message: [UInt8] = []
        for field in fields.sorted(by: { $0.domain < $1.domain }) {
            message.append(field.domain)
            message.append(contentsOf: BLAKE2b.hash(field.value, length: 32))
        }
        return BLAKE2b.hash(message, length: 32)
    }

    /// The root chunk: a fresh nonce, then the plaintext sealed under `IK`.
    func sealed(
        keys: VaultKeys,
        vaultID: [UInt8],
        generation: UInt64,
        headerHash: [UInt8],
        random: some RandomSource
    ) -> [UInt8] {
        var plaintext = ByteWriter(capacity: 9 + ScopeState.byteCount * scopes.count)
        plaintext.u64(liveBytes)
        plaintext.u8(UInt8(scopes.count))
        for scope in scopes { scope.encode(into: &plaintext) }
        return SealedChunk.seal(
            plaintext.bytes,
            using: keys.indexKey,
            authenticating: Self.associatedData(vaultID: vaultID, generation: generation, headerHash: headerHash),
            random: random
        )
    }

    /// Opens the root chunk and checks its scope list against the header's access-group domains
    /// (R3-ROOT-1). The tags are checked by ``verifyTags(keys:vaultID:groupsHash:)``.
    static func open(
        _ chunk: [UInt8],
        keys: VaultKeys,
        vaultID: [UInt8],
        generation: UInt64,
        headerHash: [UInt8],
        groupDomains: [UInt8]
    ) throws(VaultFormatError) -> Root {
        guard
            let plaintext = SealedChunk.open(
                chunk,
                using: keys.indexKey,
                authenticating: associatedData(vaultID: vaultID, generation: generation, headerHash: headerHash)
            )
        else { throw VaultFormatError(.indexCorrupt, "the root does not open") }
        var reader = ByteReader(plaintext, failure: .indexCorrupt)
        let liveBytes = try reader.u64("the root's live bytes")
        let count = Int(try reader.u8("the root's scope count"))
        var scopes: [ScopeState] = []
        for _ in 0..<count { scopes.append(try ScopeState.decode(from: &reader)) }
        guard reader.isAtEnd else { throw VaultFormatError(.indexCorrupt, "the root has bytes after its scopes") }
        let expected = [ScopeID.master, .base] + groupDomains.sorted().map { ScopeID.group($0) }
        guard scopes.map(\.scope) == expected else {
            throw VaultFormatError(.indexCorrupt, "the root's scopes are not the master, base and group scopes")
        }
        guard scopes.reduce(0, { $0 + UInt64($1.liveCount) }) <= maximumEntryCount,
            scopes.reduce(0, { $0 + UInt64($1.deletedCount) }) <= maximumEntryCount
        else { throw VaultFormatError(.limit, "the vault holds more than 1,000,000 items or deletions") }
        return Root(liveBytes: liveBytes, scopes: scopes)
    }

    /// Checks the tag of every scope whose key `keys` holds (R3-SCP-1, R3-SCP-2).
    ///
    /// - Throws: `indexCorrupt` naming the scope whose tag does not match: a writer without its
    ///   key changed it.
    func verifyTags(keys: VaultKeys, vaultID: [UInt8], groupsHash: [UInt8]) throws(VaultFormatError) {
        for state in scopes {
            guard let key = keys.scopeKeys[state.scope] else { continue }
            guard SecretMemory.equal(state.expectedTag(key: key, vaultID: vaultID, groupsHash: groupsHash), state.tag)
            else {
                throw VaultFormatError(
                    .indexCorrupt,
                    "the items of \(state.scope) were changed by a writer without their key"
                )
            }
        }
    }
}

extension ScopeID: CustomStringConvertible {
    /// The scope in words, for messages (Spec/format-v3.md §11).
    package var description: String {
        switch kind {
        case 0: "the master scope (items only the master key seals)"
        case 1: "the base scope (the always items)"
        default: "access group domain \(domain)"
        }
    }
}
