// The format-3 root and its scope tags: who can write which scope (Spec/format-v3.md §6.1, §7;
// design draft).

import Testing

@testable import VaultFormat

private let vaultID = [UInt8](repeating: 6, count: 16)
private let random = SeededRandom(seed: "format 3 root")
private let master: MasterKey = random.key()
private let groups: [UInt8: String] = [1: "deploy", 2: "billing"]
/// The owner: the master key, so every scope key.
private let owner = KeyHierarchy.keys(
    KeyHierarchy.keys(master: master, deviceSecret: nil, vaultID: vaultID),
    groups: groups,
    vaultID: vaultID
)
/// A base-scope keyslot's holder.
private let baseOnly = VaultKeys(
    master: nil,
    base: KeyHierarchy.baseKey(from: master),
    deviceSecret: nil,
    vaultID: vaultID
)
/// A recipient limited to `deploy`.
private let deploy = VaultKeys(
    limitedKeys: KeyHierarchy.limitedKeys(domain: 1, name: "deploy", master: master),
    domain: 1,
    deviceSecret: nil,
    vaultID: vaultID
)
private let fields: [(domain: UInt8, value: [UInt8])] = [
    (1, [UInt8](repeating: 1, count: 106)), (2, [UInt8](repeating: 2, count: 106)),
]
private let groupsHash = Root.groupsHash(fields: fields)
private let headerHash = [UInt8](repeating: 8, count: 32)

private func tree(_ byte: UInt8) -> ChunkReference {
    ChunkReference(offset: 2_048, length: 100, hash: [UInt8](repeating: byte, count: 32))
}

/// A root as the owner writes it: every scope tagged with its own key.
private func ownersRoot() -> Root {
    let scopes: [ScopeID] = [.master, .base, .group(1), .group(2)]
    return Root(
        liveBytes: 5_000,
        scopes: scopes.enumerated().map { index, scope in
            ScopeState(
                scope: scope,
                counter: 10 + UInt64(index),
                tree: tree(UInt8(index)),
                liveCount: 3,
                deletedCount: 1,
                key: owner.scopeKeys[scope]!,
                vaultID: vaultID,
                groupsHash: groupsHash
            )
        }
    )
}

@Suite("Format-3 root and scope tags")
struct RootTests {
    @Test("the root seals, opens under its generation and header only, and checks its scopes (R3-ROOT-1)")
    func rootRoundTrips() throws {
        let root = ownersRoot()
        let chunk = root.sealed(keys: owner, vaultID: vaultID, generation: 4, headerHash: headerHash, random: random)
        #expect(chunk.count == 24 + 9 + 4 * 94 + 16)
        let opened = try Root.open(
            chunk,
            keys: baseOnly,
            vaultID: vaultID,
            generation: 4,
            headerHash: headerHash,
            groupDomains: [1, 2]
        )
        #expect(opened == root)
        #expect(throws: VaultFormatError(.indexCorrupt), "another generation") {
            try Root.open(
                chunk,
                keys: owner,
                vaultID: vaultID,
                generation: 5,
                headerHash: headerHash,
                groupDomains: [1, 2]
            )
        }
        #expect(throws: VaultFormatError(.indexCorrupt), "a group field removed from the header") {
            try Root.open(
                chunk,
                keys: owner,
                vaultID: vaultID,
                generation: 4,
                headerHash: headerHash,
                groupDomains: [1]
            )
        }
    }

    @Test("each holder checks the scopes it holds a key for (R3-SCP-1)")
    func holdersCheckTheirScopes() throws {
        let root = ownersRoot()
        #expect(Set(owner.scopeKeys.keys) == [.master, .base, .group(1), .group(2)])
        #expect(Set(baseOnly.scopeKeys.keys) == [.base])
        #expect(Set(deploy.scopeKeys.keys) == [.group(1)])
        for keys in [owner, baseOnly, deploy] {
            #expect(throws: Never.self) { try root.verifyTags(keys: keys, vaultID: vaultID, groupsHash: groupsHash) }
        }
    }

    /// What a writer without the master key can and cannot do to the master scope.
    @Test("a base-key holder's change to the master scope fails the owner's check only (R3-SCP-1, R3-SCP-3)")
    func changesWithoutTheKeyAreCaught() throws {
        let attacks: [(String, (inout ScopeState) -> Void)] = [
            ("an older tree", { $0.tree = tree(9) }),
            ("a lower counter", { $0.counter -= 1 }),
            ("an item fewer", { $0.liveCount -= 1 }),
            ("a deletion dropped", { $0.deletedCount = 0 }),
        ]
        for (what, attack) in attacks {
            var root = ownersRoot()
            attack(&root.scopes[0])
            #expect(throws: VaultFormatError(.indexCorrupt), "\(what)") {
                try root.verifyTags(keys: owner, vaultID: vaultID, groupsHash: groupsHash)
            }
            #expect(throws: Never.self, "\(what): the base key holder cannot tell") {
                try root.verifyTags(keys: baseOnly, vaultID: vaultID, groupsHash: groupsHash)
            }
        }
        // A group's scope, changed by a recipient limited to another group.
        var root = ownersRoot()
        root.scopes[3].tree = tree(7)
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try root.verifyTags(keys: owner, vaultID: vaultID, groupsHash: groupsHash)
        }
        #expect(throws: Never.self) { try root.verifyTags(keys: deploy, vaultID: vaultID, groupsHash: groupsHash) }
        // The base scope, rewritten by its holder with its own key, is accepted by the owner too.
        root = ownersRoot()
        root.scopes[1] = ScopeState(
            scope: .base,
            counter: 99,
            tree: tree(5),
            liveCount: 4,
            deletedCount: 1,
            key: baseOnly.scopeKeys[.base]!,
            vaultID: vaultID,
            groupsHash: groupsHash
        )
        #expect(throws: Never.self) { try root.verifyTags(keys: owner, vaultID: vaultID, groupsHash: groupsHash) }
    }

    @Test("an access-group field changed without the master key fails the master scope's tag (R3-SCP-2)")
    func groupFieldsAreCoveredByTheMasterTag() {
        let root = ownersRoot()
        let replaced = Root.groupsHash(fields: [(1, [UInt8](repeating: 9, count: 106)), fields[1]])
        let removed = Root.groupsHash(fields: [fields[0]])
        for hash in [replaced, removed] {
            #expect(throws: VaultFormatError(.indexCorrupt)) {
                try root.verifyTags(keys: owner, vaultID: vaultID, groupsHash: hash)
            }
        }
    }
}
