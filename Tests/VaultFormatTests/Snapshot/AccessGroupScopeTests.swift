// vault: recipients limited to one access group (format 2.0): a `deploy` runner with the file
// in hand reads every `deploy` item and nothing else.

import Testing

@testable import VaultFormat

@Suite("Access-group scope (format 2.0)")
struct AccessGroupScopeTests {
    static let keyFile = Credentials(keyFile: SecretBytes(bytes: (0..<32).map { UInt8($0) }))
    static let device: DeviceSecret = SeededRandom(seed: "groupscope-device").key()

    /// A vault with items of `deploy`, `billing` and no access group, in every protection class.
    struct Team {
        let master: MasterKey
        let vaultID: [UInt8]
        let slot: Keyslot
        let runner = RecipientIdentity.generate()
        let alice = RecipientIdentity.generate()
        var deploy: [ItemID: String] = [:]
        var others: [ItemID: String] = [:]
        var file: [UInt8] = []

        init() throws {
            let random = SeededRandom(seed: "groupscope")
            let start = try KeyFileVaultStart(
                random: random,
                keyFile: AccessGroupScopeTests.keyFile,
                deviceSecret: AccessGroupScopeTests.device
            )
            (master, vaultID, slot) = (start.master, start.vaultID, start.slot)
            var writer = start.writer
            for protection in ProtectionClass.allCases {
                for group in ["deploy", "billing", ""] {
                    var attributes = ItemAttributes(service: "\(group)-\(protection)", account: "ci")
                    attributes.accessGroup = group
                    let secret = "secret of \(group) \(protection)"
                    let id = try writer.put(
                        ItemDraft(
                            id: ItemID(random: random),
                            protectionClass: protection,
                            attributes: attributes,
                            secret: SecretBytes(utf8: secret)
                        ),
                        now: 0
                    )
                    if group == "deploy" { deploy[id] = secret } else { others[id] = secret }
                }
            }
            // Generation 1 is format 1.1; generation 2 is migrated to 2.0 and gains the recipients.
            let first = try writer.encode(now: 0)
            var next = try VaultWriter(updating: try VaultSnapshot.open(first, with: Self.owner))
            try next.upgradeToVersion2()
            try next.addRecipient(Recipient(key: alice.recipient, name: "alice"))
            try next.addRecipient(Recipient(key: runner.recipient, name: "ci-deploy"), limitedTo: "deploy")
            file = try next.encode(now: 0)
        }

        static var owner: Credentials {
            var credentials = AccessGroupScopeTests.keyFile
            credentials.deviceSecret = AccessGroupScopeTests.device
            return credentials
        }

        func credentials(_ identity: RecipientIdentity) -> Credentials {
            var credentials = Credentials.identity(identity)
            credentials.deviceSecret = AccessGroupScopeTests.device
            return credentials
        }
    }

    /// The test: with its identity (and this machine's device secret) and the file in
    /// hand, the `deploy` runner reads every `deploy` item and gets `keyUnavailable` for every
    /// other item, attributes and secret alike (R2-RCP-3, R2-KEY-1).
    @Test func limitedRecipient_readsItsGroupOnly() throws {
        let team = try Team()
        #expect(team.file[8] == 2 && team.file[9] == 0)  // major 2: every 1.x reader refuses it
        let snapshot = try VaultSnapshot.open(team.file, with: team.credentials(team.runner))
        #expect(snapshot.openedByRecipient)
        #expect(snapshot.keys.base == nil && snapshot.keys.master == nil)
        #expect(try snapshot.index.count == team.deploy.count + team.others.count)
        for position in 0..<(try snapshot.index.count) {
            let id = try snapshot.index.entry(at: position).itemID
            if let expected = team.deploy[id] {
                #expect(try snapshot.attributes(at: position).accessGroup == "deploy")
                #expect(try snapshot.secret(at: position) == SecretBytes(utf8: expected))
            } else {
                #expect(throws: VaultFormatError(.keyUnavailable)) { try snapshot.secret(at: position) }
                #expect(throws: VaultFormatError(.keyUnavailable)) { try snapshot.attributes(at: position) }
            }
        }
        // Lookup by primary key works for its own items (it holds the lookup key).
        var key = ItemAttributes(service: "deploy-\(ProtectionClass.always)", account: "ci")
        key.accessGroup = "deploy"
        #expect(try snapshot.position(of: PrimaryKey(itemClass: .genericPassword, attributes: key)) != nil)
    }

    /// The owner and a full recipient still read everything, and the vault verifies.
    @Test func fullOpeners_readEverything() throws {
        let team = try Team()
        for credentials in [Team.owner, team.credentials(team.alice)] {
            let snapshot = try VaultSnapshot.open(team.file, with: credentials)
            let all = team.deploy.merging(team.others) { a, _ in a }
            for position in 0..<(try snapshot.index.count) {
                let id = try snapshot.index.entry(at: position).itemID
                #expect(try snapshot.secret(at: position) == SecretBytes(utf8: all[id]!))
            }
            let report = try snapshot.verify()
            #expect(report.checked == all.count && report.skipped == 0)
        }
    }

    /// Every `deploy` record moved to its key domain, every other record stayed in domain 0.
    @Test func groupRecords_areSealedInTheGroupDomain() throws {
        let team = try Team()
        let snapshot = try VaultSnapshot.open(team.file, with: Team.owner)
        #expect(snapshot.header.accessGroups.map(\.domain) == [1])
        for entry in try snapshot.index.entries {
            #expect(entry.domain == (team.deploy[entry.itemID] != nil ? 1 : 0))
        }
    }

    /// The library-level check: no key the limited recipient holds, nor any key one derivation
    /// away from it, opens a record outside its group.
    @Test func limitedKeys_deriveNoOtherRecordKey() throws {
        let team = try Team()
        let snapshot = try VaultSnapshot.open(team.file, with: team.credentials(team.runner))
        let keys = snapshot.keys
        var held: [SecretBytes] = [keys.headerKey, keys.indexKey, keys.lookupKey].map { SecretBytes(bytes: $0) }
        for domainKeys in keys.groupClassKeys.values {
            for pair in domainKeys.values {
                held += [SecretBytes(bytes: pair.secret), SecretBytes(bytes: pair.attributes)]
            }
        }
        var candidates = held
        for key in held {
            for c in 0..<7 {
                for context: StaticString in ["VLTclass", "VLTgrpcl"] {
                    let classKey = BLAKE2b.deriveKey(from: key, id: 16 + UInt64(c), context: context)
                    candidates.append(BLAKE2b.deriveKey(from: classKey, id: 2, context: "VLTsecrt"))
                }
            }
            candidates.append(BLAKE2b.deriveKey(from: key, id: 2, context: "VLTsecrt"))
        }
        for position in 0..<(try snapshot.index.count) {
            let entry = try snapshot.index.entry(at: position)
            guard team.deploy[entry.itemID] == nil else { continue }
            let record = try snapshot.recordBytes(at: position)
            let nonce = record.prefix(24)
            let start = record.startIndex + 24 + (entry.protectionClass.isDeviceBound ? 16 : 0)
            let secretCT = record[start..<start + entry.paddedSecretLength + 16]
            let ad = RecordCodec.context(vaultID: team.vaultID, entry: entry, label: "VLT1secr")
            for key in candidates {
                #expect(XChaCha20Poly1305.open(secretCT, using: key, nonce: nonce, authenticating: ad) == nil)
            }
        }
    }

    /// A limited recipient opens the vault read-only: it holds no base key (R2-RCP-4).
    @Test func limitedRecipient_cannotStartAWrite() throws {
        let team = try Team()
        let snapshot = try VaultSnapshot.open(team.file, with: team.credentials(team.runner))
        #expect(throws: VaultFormatError(.keyUnavailable)) { try VaultWriter(updating: snapshot) }
    }

    /// Removing the limited recipient with a rekey (R2-RCP-5) shuts it out; a rekey that keeps it
    /// rewraps its stanza and the `deploy` items stay readable to it and only to it.
    @Test func rekey_keepsOrRemovesTheLimitedRecipient() throws {
        let team = try Team()
        func rekeyed(removing: Bool) throws -> [UInt8] {
            var writer = try VaultWriter(updating: try VaultSnapshot.open(team.file, with: Team.owner))
            if removing { try writer.removeRecipient(at: 1) }
            let newMaster: MasterKey = SystemRandom().key()
            let kek = try #require(
                try KeyHierarchy.keyEncryptionKey(
                    opening: team.slot,
                    with: AccessGroupScopeTests.keyFile,
                    vaultID: team.vaultID,
                    normalizingPassword: true
                )
            )
            try writer.rekey(
                to: KeyHierarchy.keys(
                    master: newMaster,
                    deviceSecret: AccessGroupScopeTests.device,
                    vaultID: team.vaultID
                ),
                keyslots: [KeyHierarchy.rewrap(team.slot, key: newMaster.secret, using: kek, vaultID: team.vaultID)],
                droppingForeign: false,
                now: 0
            )
            return try writer.encode(now: 0)
        }
        let removed = try rekeyed(removing: true)
        #expect(throws: VaultFormatError(.wrongCredential)) {
            try VaultSnapshot.open(removed, with: team.credentials(team.runner))
        }
        let kept = try rekeyed(removing: false)
        let snapshot = try VaultSnapshot.open(kept, with: team.credentials(team.runner))
        var readable = 0
        for position in 0..<(try snapshot.index.count) {
            if (try? snapshot.secret(at: position)) != nil { readable += 1 }
        }
        #expect(readable == team.deploy.count)
        let owner = try VaultSnapshot.open(kept, with: Team.owner)
        #expect(try owner.verify().checked == team.deploy.count + team.others.count)
    }

    /// R2-VER-1: a recipient limited to a group needs format 2.0, reached only by migration.
    @Test func limitedRecipient_needsVersion2() throws {
        let team = try Team()
        let keys = KeyHierarchy.keys(master: team.master, deviceSecret: nil, vaultID: team.vaultID)
        var writer = try VaultWriter(vaultID: team.vaultID, created: 0, keyslots: [team.slot], keys: keys)
        try writer.upgradeToVersion12()
        #expect(throws: VaultFormatError(.unsupportedVersion)) {
            try writer.addRecipient(Recipient(key: team.runner.recipient, name: "ci"), limitedTo: "deploy")
        }
    }

    /// R2-RCP-1: a limited stanza's scope or domain byte changed makes it open for nobody (the
    /// associated data binds both), and the header checksum and MAC catch the edit first.
    @Test func limitedStanza_bindsScopeAndDomain() throws {
        let team = try Team()
        let header = try VaultHeader.decode(
            Array(
                team.file.prefix(
                    try VaultHeader.headerLength(preamble: team.file.prefix(16), fileLength: team.file.count)
                )
            ),
            fileLength: team.file.count
        )
        let limited = header.recipientStanzas.filter(\.isLimited)
        #expect(limited.count == 1)
        var stanza = limited[0]
        #expect(KeyHierarchy.openLimitedRecipientStanza(stanza, identity: team.runner, vaultID: team.vaultID) != nil)
        stanza.domain = 2
        #expect(KeyHierarchy.openLimitedRecipientStanza(stanza, identity: team.runner, vaultID: team.vaultID) == nil)
        #expect(KeyHierarchy.openLimitedRecipientStanza(limited[0], identity: team.alice, vaultID: team.vaultID) == nil)
    }
}

@Suite("Access-group keys across generations (format 2.0)")
struct AccessGroupHeldKeysTests {
    /// Keys held from a generation before the group had a key domain (a library's open vault, or
    /// the agent) read the group's items of the next generation: the group keys are derived again.
    @Test func heldKeys_readANewGroupDomain() throws {
        let team = try AccessGroupScopeTests.Team()
        // Generation 2 is the migrated file; reopen generation 3 with generation-2-era keys that
        // have no group domain.
        let owner = try VaultSnapshot.open(team.file, with: AccessGroupScopeTests.Team.owner)
        let stale = KeyHierarchy.keys(
            master: owner.keys.master!,
            deviceSecret: AccessGroupScopeTests.device,
            vaultID: team.vaultID
        )
        #expect(stale.groupDomains.isEmpty)
        let length = try VaultHeader.headerLength(preamble: team.file.prefix(16), fileLength: team.file.count)
        let reopened = try VaultSnapshot.open(
            headerBytes: Array(team.file.prefix(length)),
            fileLength: team.file.count,
            source: InMemoryFile(team.file),
            keys: stale,
            openedKeyslot: 0
        )
        #expect(try reopened.verify().checked == team.deploy.count + team.others.count)
    }
}
