// vault: a damaged access-group field fails the owner's open (R2-GRP-2), so a holder of the base
// key alone cannot pass a forged grouped item off as the owner's.

import Testing

@testable import VaultFormat

@Suite("Access-group field damage (format 2.0, R2-GRP-2)")
struct AccessGroupFieldDamageTests {
    typealias Team = AccessGroupForgeryTests.Team

    /// The keys of a base-scope keyslot: `BK` and what derives from it, no `MK`.
    static func baseKeys(_ team: Team) -> VaultKeys {
        VaultKeys(master: nil, base: KeyHierarchy.baseKey(from: team.master), deviceSecret: nil, vaultID: team.vaultID)
    }

    /// The security review's forgery, with `BK` alone: the `deploy` field's sealed name is
    /// damaged (so the owner derives no `deploy` key), and the `deploy` item is replaced by a
    /// domain-0 `always` record under its ID that names `deploy` (which R2-GRP-6 refuses only
    /// while the owner knows `deploy` has a domain). The MAC, keyed from `BK`, accepts it.
    static func forge(_ team: Team) throws -> [UInt8] {
        let keys = baseKeys(team)
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        writer.keys = keys
        writer.header.accessGroups[0].sealedName[0] ^= 0x01
        let forged = try RecordCodec.seal(
            ItemDraft(
                id: try #require(team.ids["db"]),
                protectionClass: .always,
                attributes: Team.attributes("db", "deploy"),
                secret: SecretBytes(utf8: "forged")
            ),
            version: writer.header.generation,
            vaultID: team.vaultID,
            keys: keys,
            domain: 0,
            random: SeededRandom(seed: "bk forgery")
        )
        try writer.insertRaw(forged)
        return try writer.encode(now: 0, random: SeededRandom(seed: "bk forgery index"))
    }

    @Test func baseKeyForgery_failsTheOwnersOpen_withHeaderAuthentication() throws {
        let team = try Team()
        let forged = try Self.forge(team)
        // The header is one the MAC accepts: a base-key holder opens it.
        let length = try VaultHeader.headerLength(preamble: forged.prefix(16), fileLength: forged.count)
        let bk = try VaultSnapshot.open(
            headerBytes: Array(forged[0..<length]),
            fileLength: forged.count,
            source: InMemoryFile(forged),
            keys: Self.baseKeys(team),
            openedKeyslot: 0
        )
        #expect(try bk.index.count == 3)
        // The owner's open names the damage instead of reading the forged record as deploy's.
        let error = try #require(throws: VaultFormatError.self) { try VaultSnapshot.open(forged, with: Team.owner) }
        #expect(error.code == .headerAuthentication)
        #expect(error.reason.contains("access group"))
        // A recipient limited to deploy cannot read the names (it holds no MK) and opens it.
        #expect(try VaultSnapshot.open(forged, with: .identity(team.runner)).keys.limitedDomain == 1)
    }

    /// A field that opens under `GNK` but holds a malformed name is `structure` for the owner.
    @Test(arguments: [0, 65])
    func malformedName_isStructure(length: Int) throws {
        let team = try Team()
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        let field = writer.header.accessGroups[0]
        var plain = [UInt8(length)] + [UInt8](repeating: 0x61, count: min(length, 64))
        plain += [UInt8](repeating: 0, count: 65 - plain.count)
        writer.header.accessGroups[0].sealedName = XChaCha20Poly1305.seal(
            plain,
            using: KeyHierarchy.groupNameKey(team.master),
            nonce: field.nonce,
            authenticating: KeyHierarchy.groupAssociatedData(domain: field.domain, vaultID: team.vaultID)
        )
        let error = try #require(throws: VaultFormatError.self) {
            try VaultSnapshot.open(writer.encode(now: 0), with: Team.owner)
        }
        #expect(error.code == .structure)
    }
}
