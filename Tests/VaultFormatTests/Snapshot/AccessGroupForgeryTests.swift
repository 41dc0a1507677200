// vault: a recipient limited to one access group forges, in its own key domain, an item that
// claims another group (Spec/threat-model.md §3.13.1); readers that know the group names refuse
// it (R2-GRP-5).

import Testing

@testable import VaultFormat

@Suite("Access-group forgery (format 2.0, R2-GRP-5)")
struct AccessGroupForgeryTests {
    static let keyFile = Credentials(keyFile: SecretBytes(bytes: (32..<64).map { UInt8($0) }))

    /// A 2.0 vault with a `deploy` item, a `billing` item and an ungrouped one; `runner` is a
    /// recipient limited to `deploy`. With `billingRecipient`, `billing` gets a key domain too.
    struct Team {
        let master: MasterKey
        let vaultID: [UInt8]
        let slot: Keyslot
        let runner = RecipientIdentity.generate()
        let accountant = RecipientIdentity.generate()
        var ids: [String: ItemID] = [:]
        var file: [UInt8] = []

        init(billingRecipient: Bool = false) throws {
            let random = SeededRandom(seed: "groupforgery")
            let start = try KeyFileVaultStart(random: random, keyFile: AccessGroupForgeryTests.keyFile)
            (master, vaultID, slot) = (start.master, start.vaultID, start.slot)
            var writer = start.writer
            for (service, group) in [("db", "deploy"), ("bank", "billing"), ("plain", "")] {
                ids[service] = try writer.put(
                    ItemDraft(
                        id: ItemID(random: random),
                        attributes: Self.attributes(service, group),
                        secret: SecretBytes(utf8: "\(service)-secret")
                    ),
                    now: 0
                )
            }
            var next = try VaultWriter(updating: try VaultSnapshot.open(writer.encode(now: 0), with: Self.owner))
            try next.upgradeToVersion2()
            try next.addRecipient(Recipient(key: runner.recipient, name: "ci-deploy"), limitedTo: "deploy")
            if billingRecipient {
                try next.addRecipient(Recipient(key: accountant.recipient, name: "accountant"), limitedTo: "billing")
            }
            file = try next.encode(now: 0)
        }

        static var owner: Credentials { AccessGroupForgeryTests.keyFile }

        static func attributes(_ service: String, _ group: String) -> ItemAttributes {
            var attributes = ItemAttributes(service: service, account: "ci")
            attributes.accessGroup = group
            return attributes
        }

        static var billingKey: PrimaryKey {
            PrimaryKey(itemClass: .genericPassword, attributes: attributes("bank", "billing"))
        }
    }

    /// What the `deploy` runner can do with its identity and the file (R2-RCP-4): find the
    /// `billing` item by its guessed primary key (it holds the lookup key), seal a record under
    /// the ID of that item in its own key domain that claims `billing`, and write a generation
    /// that the header MAC and the index AEAD accept.
    static func forge(_ team: Team, secret: String = "attacker.example.com") throws -> [UInt8] {
        let runner = try VaultSnapshot.open(team.file, with: .identity(team.runner))
        let keys = runner.keys
        #expect(keys.master == nil && keys.base == nil && keys.groupNames.isEmpty)
        let domain = try #require(keys.limitedDomain)
        let tag = keys.lookupTag(Team.billingKey)
        let position = try #require(runner.index.positions(ofTag: tag).first)
        let target = try runner.index.entry(at: position)
        #expect(throws: VaultFormatError(.keyUnavailable)) { try runner.attributes(at: position) }
        let forged = try RecordCodec.seal(
            ItemDraft(
                id: target.itemID,
                attributes: Team.attributes("bank", "billing"),
                secret: SecretBytes(utf8: secret)
            ),
            version: runner.header.generation + 1,
            vaultID: team.vaultID,
            keys: keys,
            domain: domain,
            random: SeededRandom(seed: "forged record")
        )
        // The library refuses a writer to a limited recipient (it holds no base key), so the
        // writer is started from the same file by the owner and then handed the runner's keys
        // before anything is written: every byte of the new generation (header MAC, index,
        // records) comes from the file and the runner's HK and IK.
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        writer.keys = keys
        try writer.insertRaw(forged)
        return try writer.encode(now: 0, random: SeededRandom(seed: "forged index"))
    }

    /// The issue's test: the owner's read of the forged `billing` item is `recordCorrupt`, by
    /// lookup, by position and in a whole-vault check; the file itself opens (the MAC accepts it).
    @Test(arguments: [false, true])
    func forgedItemClaimingAnotherGroup_isRecordCorruptForTheOwner(billingHasADomain: Bool) throws {
        let team = try Team(billingRecipient: billingHasADomain)
        let forged = try Self.forge(team)
        let owner = try VaultSnapshot.open(forged, with: Team.owner)
        let position = try #require(
            try owner.index.entries.firstIndex { $0.itemID == team.ids["bank"] }
        )
        #expect(try owner.index.entry(at: position).domain == 1)  // deploy's domain
        #expect(throws: VaultFormatError(.recordCorrupt)) { try owner.attributes(at: position) }
        #expect(throws: VaultFormatError(.recordCorrupt)) { try owner.position(of: Team.billingKey) }
        #expect(throws: VaultFormatError(.recordCorrupt)) { try owner.verify() }
        // Every other item still reads.
        for (service, id) in team.ids where service != "bank" {
            let at = try #require(try owner.index.entries.firstIndex { $0.itemID == id })
            #expect(try owner.secret(at: at) == SecretBytes(utf8: "\(service)-secret"))
            #expect(try owner.attributes(at: at).service == service)
        }
    }

    /// A writer meets the forged record too: an owner's rekey (R2-RCP-5, to remove the runner)
    /// refuses rather than seal the forgery again under the new keys, and succeeds once the
    /// damaged item is removed.
    @Test func rekey_refusesTheForgedRecord_untilItIsRemoved() throws {
        let team = try Team()
        let forged = try Self.forge(team)
        func rekey(_ writer: inout VaultWriter) throws {
            let newMaster: MasterKey = SystemRandom().key()
            let kek = try #require(
                try KeyHierarchy.keyEncryptionKey(
                    opening: team.slot,
                    with: Self.keyFile,
                    vaultID: team.vaultID,
                    normalizingPassword: true
                )
            )
            try writer.rekey(
                to: KeyHierarchy.keys(master: newMaster, deviceSecret: nil, vaultID: team.vaultID),
                keyslots: [KeyHierarchy.rewrap(team.slot, key: newMaster.secret, using: kek, vaultID: team.vaultID)],
                droppingForeign: false,
                now: 0
            )
        }
        var writer = try VaultWriter(updating: try VaultSnapshot.open(forged, with: Team.owner))
        try writer.removeRecipient(at: 0)
        #expect(throws: VaultFormatError(.recordCorrupt)) { try rekey(&writer) }
        #expect(try writer.remove(try #require(team.ids["bank"]), now: 0))
        try rekey(&writer)
        let after = try VaultSnapshot.open(writer.encode(now: 0), with: Team.owner)
        #expect(try after.verify().checked == 2)
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try VaultSnapshot.open(writer.encode(now: 0), with: .identity(team.runner))
        }
    }

    /// A limited recipient cannot read the group names (GNK derives from MK), so it makes no
    /// check: it reads the forged item as what it claims (R2-GRP-5 says so). It holds the key any
    /// holder of `GK(d)` wrote the item with, so this shows it nothing it could not write itself.
    @Test func limitedRecipient_cannotCheck() throws {
        let team = try Team()
        let forged = try Self.forge(team)
        let runner = try VaultSnapshot.open(forged, with: .identity(team.runner))
        let position = try #require(try runner.position(of: Team.billingKey))
        #expect(try runner.secret(at: position) == SecretBytes(utf8: "attacker.example.com"))
    }

    /// Legitimate records of a key domain read for the owner, a full recipient's keys and the
    /// limited recipient: the items moved into the domain by R2-GRP-4 and an item written into
    /// it afterwards, the check passing for each.
    @Test(arguments: [false, true])
    func recordsOfAGroupDomain_stillRead(billingHasADomain: Bool) throws {
        let team = try Team(billingRecipient: billingHasADomain)
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        let added = try writer.put(
            ItemDraft(
                id: ItemID(random: SeededRandom(seed: "added")),
                attributes: Team.attributes("ssh", "deploy"),
                secret: SecretBytes(utf8: "ssh-secret")
            )
        )
        let file = try writer.encode(now: 0)
        let owner = try VaultSnapshot.open(file, with: Team.owner)
        #expect(owner.keys.groupNames[1] == "deploy")
        #expect(try owner.verify().checked == 4)
        for position in 0..<(try owner.index.count) {
            let entry = try owner.index.entry(at: position)
            let attributes = try owner.attributes(at: position)
            let expected: UInt8 =
                switch attributes.accessGroup {
                case "deploy": 1
                case "billing": billingHasADomain ? 2 : 0
                default: 0
                }
            #expect(entry.domain == expected)
        }
        let runner = try VaultSnapshot.open(file, with: .identity(team.runner))
        for id in [team.ids["db"]!, added] {
            let position = try #require(try runner.index.entries.firstIndex { $0.itemID == id })
            #expect(try runner.attributes(at: position).accessGroup == "deploy")
        }
    }

    /// Names are compared byte for byte (R2-GRP-3, R2-GRP-5), not by Swift's canonical
    /// equivalence: an item whose group is written with other bytes than a group's name (NFD
    /// against NFC) is not that group's, is sealed in domain 0, and reads.
    @Test func groupNames_areComparedByteForByte() throws {
        let team = try Team()
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        try writer.addRecipient(Recipient(key: team.accountant.recipient, name: "cafe"), limitedTo: composed)
        let random = SeededRandom(seed: "nfc")
        var ids: [String: ItemID] = [:]
        for (service, group) in [("nfc", composed), ("nfd", decomposed)] {
            ids[service] = try writer.put(
                ItemDraft(
                    id: ItemID(random: random),
                    attributes: Team.attributes(service, group),
                    secret: SecretBytes(utf8: service)
                )
            )
        }
        #expect(try writer.entry(for: ids["nfc"]!)?.domain == 2)
        #expect(try writer.entry(for: ids["nfd"]!)?.domain == 0)
        let owner = try VaultSnapshot.open(writer.encode(now: 0), with: Team.owner)
        #expect(try owner.verify().checked == 5)
    }

    /// R2-GRP-6, the domain-0 half: a record of domain 0 whose accessGroup names a group that has
    /// a key domain (sealed by a holder of `BK` or `MK`, or rolled back to before the group had its
    /// domain) is `recordCorrupt` for every read of a holder of `MK`: by position, by primary key
    /// and in `verify`. Items of a group without a domain, and every other item, still read.
    @Test func domainZeroRecordNamingAGroupWithADomain_isCorrupt() throws {
        let team = try Team()
        var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
        let opsID = try writer.put(
            ItemDraft(
                id: ItemID(random: SeededRandom(seed: "ops")),
                attributes: Team.attributes("pager", "ops"),
                secret: SecretBytes(utf8: "ops-secret")
            ),
            now: 0
        )
        let stale = try RecordCodec.seal(
            ItemDraft(
                id: ItemID(random: SeededRandom(seed: "stale")),
                protectionClass: .always,
                attributes: Team.attributes("old", "deploy"),
                secret: SecretBytes(utf8: "old-secret")
            ),
            version: writer.header.generation,
            vaultID: team.vaultID,
            keys: writer.keys,
            domain: 0,
            random: SystemRandom()
        )
        try writer.insertRaw(stale)
        let owner = try VaultSnapshot.open(writer.encode(now: 0), with: Team.owner)
        let position = try #require(
            try owner.index.entries.firstIndex { $0.itemID == stale.entry.itemID }
        )
        #expect(throws: VaultFormatError(.recordCorrupt)) { _ = try owner.attributes(at: position) }
        #expect(throws: VaultFormatError(.recordCorrupt)) {
            _ = try owner.position(
                of: PrimaryKey(itemClass: .genericPassword, attributes: Team.attributes("old", "deploy"))
            )
        }
        #expect(throws: VaultFormatError(.recordCorrupt)) { _ = try owner.verify() }
        do {
            _ = try owner.item(at: position, includeSecret: false)
            Issue.record("the record read")
        } catch let damage as ItemDamage {
            #expect(damage.error.code == .recordCorrupt && damage.entry.itemID == stale.entry.itemID)
        }
        let salvaged = try owner.salvage(includeSecrets: true)
        #expect(salvaged.damaged.map(\.entry.itemID) == [stale.entry.itemID])
        #expect(Set(salvaged.items.map(\.attributes.service)) == ["db", "bank", "plain", "pager"])
        #expect(salvaged.items.contains { $0.entry.itemID == opsID && $0.attributes.accessGroup == "ops" })
    }
}
