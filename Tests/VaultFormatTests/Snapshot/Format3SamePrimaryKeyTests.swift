// Format 3 against a key holder that plants an item with the primary key of an item in a scope it
// cannot write (security review of format 3; Spec/format-v3.md R-IDX-5, R-IDX-6).

import Testing

@testable import VaultFormat

@Suite("Format 3: one primary key in two scopes")
struct Format3SamePrimaryKeyTests {
    /// The fixture's file after its device keyslot's holder (`BK` alone) commits, in the base
    /// scope, an `always` item with the primary key of the master-scope `db` item, a later
    /// modification date and the lowest item ID.
    static func planted(_ fixture: Format3Fixture) throws -> (file: [UInt8], id: ItemID) {
        let id = ItemID(bytes: [UInt8](repeating: 0, count: ItemID.byteCount))
        let commit = try fixture.commit(on: fixture.file, opening: { try $0.base($1) }) { writer in
            var draft = fixture.secretItem
            draft.id = id
            draft.protectionClass = .always
            draft.secret = SecretBytes(utf8: "forged")
            draft.attributes.modificationDate = TestVault.now + 86_400_000
            try writer.insertRaw(
                try RecordCodec.seal(
                    draft,
                    version: 7,
                    vaultID: fixture.vault.vaultID,
                    keys: writer.keys,
                    domain: 0,
                    random: fixture.vault.random
                )
            )
        }
        return (commit.applied(to: fixture.file), id)
    }

    @Test("a base-key holder can commit an always item with a master item's primary key")
    func baseHolderPlantsTheDuplicate() throws {
        let fixture = try Format3Fixture()
        let (file, id) = try Self.planted(fixture)
        let owner = try fixture.owner(file)
        #expect(try owner.format3?.located(tag: owner.keys.lookupTag(fixture.secretItem.primaryKey)).count == 2)
        // The whole-vault check finds it (R-IDX-5).
        #expect(throws: VaultFormatError(.recordCorrupt)) { try owner.verify() }
        #expect(
            try owner.verifyEachItem().damaged.map(\.entry.itemID).sorted() == [id, fixture.secretItem.id].sorted()
        )
    }

    /// R-IDX-6: every lookup by primary key fails rather than answer with either item. Before the
    /// fix `location(of:)` (the keychain API's reads) returned the planted item, whose ID sorts
    /// first, and `VaultWriter.itemID(for:)` (every upsert) returned it too, so that the owner's
    /// next `set` of `db` sealed the new secret as an `always` item the base-key holder reads.
    @Test("two items with one primary key answer no lookup and take no write (R-IDX-6)")
    func lookupsRefuseTheDuplicate() throws {
        let fixture = try Format3Fixture()
        let (file, _) = try Self.planted(fixture)
        let owner = try fixture.owner(file)
        let key = fixture.secretItem.primaryKey
        #expect(throws: VaultFormatError(.recordCorrupt)) { try owner.location(of: key) }
        #expect(throws: VaultFormatError(.recordCorrupt)) {
            try owner.location(identifiedBy: fixture.secretItem.attributes, itemClass: .genericPassword)
        }
        #expect(throws: VaultFormatError(.recordCorrupt)) { try owner.position(of: key) }
        var writer = try VaultWriter(updating: owner)
        #expect(throws: VaultFormatError(.recordCorrupt)) { try writer.itemID(for: key) }
        #expect(throws: VaultFormatError(.recordCorrupt)) {
            try writer.put(rotated(fixture.secretItem, to: "rotated"), random: fixture.vault.random)
        }
        // An item whose key is not duplicated is found as before.
        #expect(try secret(owner, fixture.alwaysItem) == "open sesame")
    }

    /// The way out the error names: the owner removes the planted item by its ID (`rm --id`),
    /// which takes no lookup by primary key, and its own item answers again.
    @Test("removing one of the two by ID makes the other answer again (R-IDX-6)")
    func removingOneByIDRepairs() throws {
        let fixture = try Format3Fixture()
        let (file, id) = try Self.planted(fixture)
        var removed = false
        let repaired = try fixture.commit(on: file) { writer in
            removed = try writer.remove(id, now: TestVault.now + 120_000, random: fixture.vault.random)
        }
        .applied(to: file)
        #expect(removed)
        let owner = try fixture.owner(repaired)
        #expect(try secret(owner, fixture.secretItem) == "s3cret")
        #expect(try owner.verify() == (2, 0))
    }
}
