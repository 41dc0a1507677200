// vault: the catalog of format 2.0 damage fixtures: access-group fields, stanzas and grouped
// records as key holders write them, with the header MAC recomputed.

import VaultFormat

/// Every fixture of `Fixtures/v2-damage` (Spec/format-v2.md, Spec/test-vectors.md): one damage
/// of an access-group field, a recipient stanza or a grouped record per file, each written with
/// the keys of the least holder that can write it and a header MAC and index that those keys
/// make valid, as `KeyHolderRewrite` writes them.
///
/// `swift run vault-fixturegen Fixtures/v2-damage` writes them; `FixtureV2DamageTests` proves that
/// the landed files equal what this code makes, byte for byte.
public enum FixtureCatalogV2Damage {
    /// The password of every fixture (the same as v1).
    public static let password = FixtureCatalog.password
    /// The folder's name.
    public static let folder = "v2-damage"

    typealias Person = (identity: RecipientIdentity, file: String)

    static func identity(_ name: String) -> Person {
        (
            RecipientIdentity.generate(random: SeededRandom(seed: "vault fixtures v2-damage identity: " + name)),
            name + ".identity"
        )
    }

    /// Who can write a file whose header MAC holds (the manifest's `writer`).
    enum Writer: String {
        case baseKey = "base key"
        case limitedRecipient = "limited recipient"
        case masterKey = "master key"
    }

    /// Generates every fixture.
    public static func generate() throws -> FixtureCatalog.Output {
        var c = FixtureCatalog.Builder()
        let people = (
            alice: identity("alice"),
            runner: identity("runner"),
            accountant: identity("accountant"),
            mallory: identity("mallory")
        )
        for person in [people.alice, people.runner, people.accountant, people.mallory] {
            c.files[person.file] = person.identity.fileContents.copyBytes()
        }
        let team = try Team(alice: people.alice, runner: people.runner, accountant: people.accountant)
        try team.baseline(&c)
        try team.groupFields(&c)
        try team.records(&c)
        try team.stanzas(&c, mallory: people.mallory)
        let manifest = FixtureManifest(
            format: "vault v2",
            generator: "swift run vault-fixturegen Fixtures/v2-damage",
            cases: c.cases
        )
        c.files["manifest.json"] = try manifest.encoded()
        return FixtureCatalog.Output(files: c.files, manifest: manifest)
    }

    /// A 2.0 vault with two `deploy` items, two `billing` items and one without an access group;
    /// alice is a full recipient, the runner is limited to `deploy` (domain 1), the accountant to
    /// `billing` (domain 2). Every damaged file is an edit of it.
    struct Team {
        let alice: Person
        let runner: Person
        let accountant: Person
        let good: [UInt8]
        let items: [FixtureItem]
        let owner: VaultKeys
        let base: VaultKeys
        let runnerKeys: VaultKeys
        let vaultID: [UInt8]
        /// Item ID by service.
        var ids: [String: ItemID] = [:]

        init(alice: Person, runner: Person, accountant: Person) throws {
            (self.alice, self.runner, self.accountant) = (alice, runner, accountant)
            let m = try FixtureMaker(seed: "v2-damage two groups", slots: [.password(password)], minor: 2)
            for (service, group, protection) in [
                ("db.example.com", "deploy", ProtectionClass.whenUnlocked), ("registry", "deploy", .always),
                ("bank", "billing", .whenUnlocked), ("invoices", "billing", .always), ("wiki", "", .always),
            ] {
                var attributes = ItemAttributes(service: service, account: "ci")
                attributes.accessGroup = group
                ids[service] = try m.add(
                    .genericPassword,
                    protection,
                    attributes: attributes,
                    secret: Array("\(service)-secret".utf8)
                ).id
            }
            try m.upgradeToVersion2()
            try m.addRecipient(alice.identity.recipient, name: "alice@laptop")
            try m.addRecipient(runner.identity.recipient, name: "ci-deploy", limitedTo: "deploy")
            try m.addRecipient(accountant.identity.recipient, name: "accountant", limitedTo: "billing")
            good = try m.bytes()
            items = m.items
            vaultID = m.vaultID
            owner = try VaultSnapshot.open(good, with: .password(password)).keys
            base = KeyHolderRewrite.baseKeyHolder(of: owner, vaultID: vaultID)!
            runnerKeys = try VaultSnapshot.open(good, with: .identity(runner.identity)).keys
        }

        func group(_ name: String) -> [FixtureItem] { items.filter { $0.attributes.accessGroup == name } }

        /// The keys of `writer`: a holder of `BK` alone, the `deploy` runner, or the owner.
        func keys(_ writer: Writer) -> VaultKeys {
            switch writer {
            case .baseKey: base
            case .limitedRecipient: runnerKeys
            case .masterKey: owner
            }
        }

        /// `good` changed by `change` and written again with `writer`'s keys: header MAC and
        /// index recomputed, random bytes from a seed named after the file.
        func edit(
            _ c: inout FixtureCatalog.Builder,
            _ name: String,
            as writer: Writer,
            _ change: (inout KeyHolderRewrite) throws -> Void
        ) throws -> String {
            var file = try KeyHolderRewrite(good, keys: keys(writer))
            try change(&file)
            return c.file(name + ".vault", file.encode(random: SeededRandom(seed: "vault fixtures v2-damage: " + name)))
        }

        func random(_ name: String) -> SeededRandom { SeededRandom(seed: "vault fixtures v2-damage: \(name) parts") }

        /// Positions of the fields of `type` in file order.
        static func positions(_ file: KeyHolderRewrite, _ type: UInt16) -> [Int] {
            file.fields.indices.filter { file.fields[$0].type == type }
        }

        static let group = AccessGroupEntry.fieldType
        static let stanza = RecipientStanza.fieldType

        func baseline(_ c: inout FixtureCatalog.Builder) throws {
            let file = c.file("v2d_two_groups.vault", good)
            try c.success(
                "v2d_two_groups_password",
                file: file,
                items: items,
                "the password keyslot reads every item of both key domains (R2-KEY-1); every other file is an edit of this one"
            )
            try c.success(
                "v2d_two_groups_alice",
                file: file,
                credentials: .init(identity: alice.file),
                items: items,
                "a full recipient holds MK and reads every item (R12-RCP-3)"
            )
            try c.success(
                "v2d_two_groups_runner",
                file: file,
                credentials: .init(identity: runner.file),
                items: group("deploy"),
                unavailable: 3,
                "the runner is limited to deploy, domain 1 (R2-RCP-3)"
            )
            try c.success(
                "v2d_two_groups_accountant",
                file: file,
                credentials: .init(identity: accountant.file),
                items: group("billing"),
                unavailable: 3,
                "the accountant is limited to billing, domain 2 (R2-RCP-3)"
            )
        }

        // MARK: - Access-group fields

        func groupFields(_ c: inout FixtureCatalog.Builder) throws {
            let runnerReads = FixtureCredentials(identity: runner.file)
            var file = try edit(&c, "group_name_flipped", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.group)[0]].value[25 + 10] ^= 0x04
            }
            c.failure(
                "group_name_flipped_password",
                file: file,
                .headerAuthentication,
                writer: Writer.baseKey.rawValue,
                "a bit of deploy's sealed name flipped, the MAC recomputed by a holder of BK alone: the field does not open under GNK (R2-GRP-2)"
            )
            c.failure(
                "group_name_flipped_alice",
                file: file,
                credentials: .init(identity: alice.file),
                .headerAuthentication,
                writer: Writer.baseKey.rawValue,
                "the same file with a full recipient, who holds MK too (R2-GRP-2)"
            )
            try c.success(
                "group_name_flipped_runner",
                file: file,
                credentials: runnerReads,
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner: a limited recipient cannot read the names and does not check them (R2-GRP-2)"
            )
            file = try edit(&c, "group_fields_swapped", as: .baseKey) { f in
                let at = Self.positions(f, Self.group)
                let (first, second) = (f.fields[at[0]].value, f.fields[at[1]].value)
                f.fields[at[0]].value = [first[0]] + second.dropFirst()
                f.fields[at[1]].value = [second[0]] + first.dropFirst()
            }
            c.failure(
                "group_fields_swapped_password",
                file: file,
                .headerAuthentication,
                writer: Writer.baseKey.rawValue,
                "deploy's and billing's sealed names exchanged, domains kept: each name's associated data binds its domain (R2-GRP-2)"
            )
            try c.success(
                "group_fields_swapped_runner",
                file: file,
                credentials: runnerReads,
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner, which reads no name (R2-GRP-2)"
            )
            try malformedNames(&c)
            try repeatedName(&c)
            file = try edit(&c, "group_field_long", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.group)[0]].value.append(0)
            }
            c.failure(
                "group_field_long_password",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "an access-group field of 107 bytes (R2-GRP-1)"
            )
            c.failure(
                "group_field_long_runner",
                file: file,
                credentials: runnerReads,
                .structure,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner: fields are decoded before any key is tried (R2-GRP-1)"
            )
            file = try edit(&c, "group_domain_33", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.group)[1]].value[0] = 33
            }
            c.failure(
                "group_domain_33",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "billing's field names domain 33, outside 1 to 32 (R2-GRP-1)"
            )
            file = try edit(&c, "group_fields_33", as: .baseKey) { f in
                let at = Self.positions(f, Self.group)
                let extra = (3...33).map { domain in
                    KeyHolderRewrite.Field(type: Self.group, value: [UInt8(domain)] + f.fields[at[1]].value.dropFirst())
                }
                f.fields.insert(contentsOf: extra, at: at[1] + 1)
            }
            c.failure(
                "group_fields_33",
                file: file,
                .limit,
                writer: Writer.baseKey.rawValue,
                "33 access-group fields, domains 1 to 33: the 33rd is limit, counted before its value is decoded (R2-GRP-1)"
            )
            file = try edit(&c, "group_fields_descending", as: .baseKey) { f in
                let at = Self.positions(f, Self.group)
                f.fields.swapAt(at[0], at[1])
            }
            c.failure(
                "group_fields_descending",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "billing's field (domain 2) before deploy's (domain 1): domains must be strictly ascending (R2-GRP-1)"
            )
            file = try edit(&c, "group_field_dropped", as: .baseKey) { f in
                f.fields.remove(at: Self.positions(f, Self.group)[1])
            }
            c.failure(
                "group_field_dropped_password",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "billing's field removed while the accountant's stanza names domain 2 (R2-RCP-1)"
            )
            c.failure(
                "group_field_dropped_accountant",
                file: file,
                credentials: .init(identity: accountant.file),
                .structure,
                writer: Writer.baseKey.rawValue,
                "the same file with the accountant: checked after the last field, before any key is tried (R2-RCP-1)"
            )
            file = try edit(&c, "group_field_and_stanza_dropped", as: .baseKey) { f in
                let stanzas = Self.positions(f, Self.stanza)
                f.fields.remove(at: Self.positions(f, Self.group)[1])
                f.fields.remove(at: stanzas[2])
            }
            c.failure(
                "group_field_and_stanza_dropped_password",
                file: file,
                .indexCorrupt,
                writer: Writer.baseKey.rawValue,
                "billing's field and the accountant's stanza removed, billing's records kept: index entries name domain 2, which has no field (R2-IDX-1)"
            )
            c.failure(
                "group_field_and_stanza_dropped_runner",
                file: file,
                credentials: runnerReads,
                .indexCorrupt,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner, which holds IK and checks the domains too (R2-IDX-1)"
            )
            file = try edit(&c, "group_field_from_other_copy", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.group)[0]].value = try KeyHolderRewrite.accessGroupField(
                    name: "payroll",
                    domain: 1,
                    ownerKeys: owner,
                    vaultID: vaultID,
                    random: random("group_field_from_other_copy")
                )
            }
            c.failure(
                "group_field_from_other_copy_password",
                file: file,
                .recordCorrupt,
                writer: Writer.baseKey.rawValue,
                "deploy's field replaced by domain 1's field of another copy of the vault, which gave domain 1 to payroll: the name opens, the group key it gives opens no deploy record (R2-GRP-2, R2-KEY-1)"
            )
            try c.success(
                "group_field_from_other_copy_runner",
                file: file,
                credentials: runnerReads,
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner, whose group key came in its stanza (R2-RCP-3)"
            )
        }

        /// A second field naming deploy, spliced from another copy of the vault that gave deploy
        /// domain 3 (same `MK`): it opens, and the name is deploy's twice.
        func repeatedName(_ c: inout FixtureCatalog.Builder) throws {
            let file = try edit(&c, "group_name_repeated", as: .baseKey) { f in
                let at = Self.positions(f, Self.group)
                let spliced = try KeyHolderRewrite.accessGroupField(
                    name: "deploy",
                    domain: 3,
                    ownerKeys: owner,
                    vaultID: vaultID,
                    random: random("group_name_repeated")
                )
                f.fields.insert(KeyHolderRewrite.Field(type: Self.group, value: spliced), at: at[1] + 1)
            }
            c.failure(
                "group_name_repeated_password",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "a field of another copy that gave deploy domain 3 spliced in: two fields name deploy, and a writer would seal its items in either domain (R2-GRP-2)"
            )
            try c.success(
                "group_name_repeated_runner",
                file: file,
                credentials: .init(identity: runner.file),
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner, which reads no name (R2-GRP-2)"
            )
        }

        /// Fields that open under `GNK` but hold a malformed name: only a holder of `MK` writes them.
        func malformedNames(_ c: inout FixtureCatalog.Builder) throws {
            let deploy = Array("deploy".utf8)
            let names: [(String, [UInt8], String)] = [
                ("group_name_empty", [0] + [UInt8](repeating: 0, count: 64), "a sealed name of length 0"),
                (
                    "group_name_too_long", [65] + [UInt8](repeating: 0x61, count: 64),
                    "a sealed name whose length byte is 65"
                ),
                (
                    "group_name_padding_nonzero",
                    [6] + deploy + [UInt8](repeating: 0, count: 57) + [1],
                    "a sealed name, deploy, whose padding ends in 0x01"
                ),
                (
                    "group_name_not_utf8", [2, 0xC3, 0x28] + [UInt8](repeating: 0, count: 62),
                    "a sealed name that is not UTF-8 (0xC3 0x28)"
                ),
            ]
            for (name, plaintext, what) in names {
                let file = try edit(&c, name, as: .masterKey) { f in
                    f.fields[Self.positions(f, Self.group)[0]].value = KeyHolderRewrite.accessGroupField(
                        sealing: plaintext,
                        domain: 1,
                        ownerKeys: owner,
                        vaultID: vaultID,
                        random: random(name)
                    )
                }
                c.failure(
                    name,
                    file: file,
                    .structure,
                    writer: Writer.masterKey.rawValue,
                    "\(what) in domain 1's field: it opens under GNK and is malformed (R2-GRP-2)"
                )
            }
        }

        // MARK: - Grouped records

        func records(_ c: inout FixtureCatalog.Builder) throws {
            var file = try edit(&c, "index_domain_unknown", as: .baseKey) { f in
                let at = f.records.firstIndex { $0.entry.itemID == ids["wiki"] }!
                f.records[at].entry.domain = 7
            }
            c.failure(
                "index_domain_unknown_password",
                file: file,
                .indexCorrupt,
                writer: Writer.baseKey.rawValue,
                "an index entry names key domain 7, which has no access-group field (R2-IDX-1)"
            )
            c.failure(
                "index_domain_unknown_runner",
                file: file,
                credentials: .init(identity: runner.file),
                .indexCorrupt,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner (R2-IDX-1)"
            )
            file = try edit(&c, "record_domain_changed", as: .baseKey) { f in
                let at = f.records.firstIndex { $0.entry.itemID == ids["registry"] }!
                f.records[at].entry.domain = 0
            }
            c.failure(
                "record_domain_changed_password",
                file: file,
                .recordCorrupt,
                writer: Writer.baseKey.rawValue,
                "deploy's always item moved to domain 0 in the index: domain 0's always key does not open it (R2-KEY-1)"
            )
            try c.success(
                "record_domain_changed_runner",
                file: file,
                credentials: .init(identity: runner.file),
                items: group("deploy").filter { $0.id != ids["registry"]!.description },
                unavailable: 4,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner: the item reads as one of domain 0, not its own; it cannot tell, as it cannot tell a deleted item (R2-RCP-4)"
            )
            file = try edit(&c, "record_domain0_claims_group", as: .baseKey) { f in
                var attributes = ItemAttributes(service: "planted", account: "ci")
                attributes.accessGroup = "deploy"
                attributes.creationDate = FixtureCatalog.epoch
                attributes.modificationDate = FixtureCatalog.epoch
                f.insert(
                    try f.seal(
                        ItemDraft(
                            id: ItemID(random: random("record_domain0_claims_group")),
                            protectionClass: .always,
                            attributes: attributes,
                            secret: SecretBytes(utf8: "planted-secret")
                        ),
                        domain: 0,
                        random: random("record_domain0_claims_group seal")
                    )
                )
            }
            c.failure(
                "record_domain0_claims_group_password",
                file: file,
                .recordCorrupt,
                writer: Writer.baseKey.rawValue,
                "an always record of domain 0, sealed with BK alone, that claims deploy, which has a domain (R2-GRP-6)"
            )
            try c.success(
                "record_domain0_claims_group_runner",
                file: file,
                credentials: .init(identity: runner.file),
                items: group("deploy"),
                unavailable: 4,
                writer: Writer.baseKey.rawValue,
                "the same file with the runner: the planted record is of domain 0, which it cannot read"
            )
            let bank = ids["bank"]!
            file = try edit(&c, "record_group_claims_other_group", as: .limitedRecipient) { f in
                var attributes = ItemAttributes(service: "bank", account: "ci")
                attributes.accessGroup = "billing"
                f.insert(
                    try f.seal(
                        ItemDraft(id: bank, attributes: attributes, secret: SecretBytes(utf8: "attacker.example.com")),
                        domain: 1,
                        random: random("record_group_claims_other_group")
                    )
                )
            }
            c.failure(
                "record_group_claims_other_group_password",
                file: file,
                .recordCorrupt,
                writer: Writer.limitedRecipient.rawValue,
                "the runner seals in domain 1, under billing's bank ID, a record that claims billing (R2-GRP-5)"
            )
            try c.success(
                "record_group_claims_other_group_accountant",
                file: file,
                credentials: .init(identity: accountant.file),
                items: group("billing").filter { $0.id != bank.description },
                unavailable: 4,
                writer: Writer.limitedRecipient.rawValue,
                "the same file with the accountant: the bank entry is now of domain 1, which it cannot read (R2-RCP-4)"
            )
            file = try edit(&c, "record_group_claims_no_group", as: .limitedRecipient) { f in
                var attributes = ItemAttributes(service: "planted", account: "ci")
                attributes.creationDate = FixtureCatalog.epoch
                f.insert(
                    try f.seal(
                        ItemDraft(
                            id: ItemID(random: random("record_group_claims_no_group")),
                            attributes: attributes,
                            secret: SecretBytes(utf8: "planted-secret")
                        ),
                        domain: 1,
                        random: random("record_group_claims_no_group seal")
                    )
                )
            }
            c.failure(
                "record_group_claims_no_group",
                file: file,
                .recordCorrupt,
                writer: Writer.limitedRecipient.rawValue,
                "the runner seals in domain 1 a record with no access group (R2-GRP-5)"
            )
        }

        // MARK: - Recipient stanzas

        func stanzas(_ c: inout FixtureCatalog.Builder, mallory: Person) throws {
            var file = try edit(&c, "stanza_duplicate_full", as: .baseKey) { f in
                let at = Self.positions(f, Self.stanza)[0]
                f.fields.insert(f.fields[at], at: at + 1)
            }
            try c.success(
                "stanza_duplicate_full_alice",
                file: file,
                credentials: .init(identity: alice.file),
                items: items,
                writer: Writer.baseKey.rawValue,
                "alice's stanza twice (a copy needs no key): she opens it, and she is one recipient (R12-RCP-7)"
            )
            try c.success(
                "stanza_duplicate_full_password",
                file: file,
                items: items,
                writer: Writer.baseKey.rawValue,
                "the same file with the password (R12-RCP-5)"
            )
            file = try edit(&c, "stanza_duplicate_limited", as: .baseKey) { f in
                let at = Self.positions(f, Self.stanza)[1]
                f.fields.insert(f.fields[at], at: at + 1)
            }
            try c.success(
                "stanza_duplicate_limited_runner",
                file: file,
                credentials: .init(identity: runner.file),
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.baseKey.rawValue,
                "the runner's stanza twice: it opens, still limited to deploy (R12-RCP-7, R2-RCP-3)"
            )
            file = try edit(&c, "stanza_names_other_key", as: .masterKey) { f in
                let at = Self.positions(f, Self.stanza)[0]
                f.fields[at].value = KeyHolderRewrite.stanza(
                    wrapping: KeyHolderRewrite.masterKeyPayload(of: owner)!,
                    to: alice.identity.recipient,
                    info: KeyHolderRewrite.stanzaInfo(naming: runner.identity.recipient, name: "ci-deploy"),
                    infoKeys: owner,
                    vaultID: vaultID,
                    random: random("stanza_names_other_key")
                )
            }
            c.failure(
                "stanza_names_other_key_alice",
                file: file,
                credentials: .init(identity: alice.file),
                .structure,
                writer: Writer.masterKey.rawValue,
                "alice's full stanza wraps MK to her key, its info names the runner's: her identity, which can read the info, refuses it and nothing else opens (R12-RCP-7)"
            )
            try c.success(
                "stanza_names_other_key_password",
                file: file,
                items: items,
                writer: Writer.masterKey.rawValue,
                "the same file with the password: an open with a keyslot reads no stanza's info (R12-RCP-4)"
            )
            let pristine = try KeyHolderRewrite(good, keys: owner)
            let runnerPayload = KeyHolderRewrite.unwrap(
                stanza: pristine.fields[Self.positions(pristine, Self.stanza)[1]].value,
                identity: runner.identity,
                vaultID: vaultID
            )!
            file = try edit(&c, "stanza_limited_names_other_key", as: .masterKey) { f in
                let at = Self.positions(f, Self.stanza)[1]
                f.fields[at].value = KeyHolderRewrite.stanza(
                    wrapping: runnerPayload,
                    to: runner.identity.recipient,
                    domain: 1,
                    info: KeyHolderRewrite.stanzaInfo(naming: alice.identity.recipient, name: "alice@laptop"),
                    infoKeys: owner,
                    vaultID: vaultID,
                    random: random("stanza_limited_names_other_key")
                )
            }
            try c.success(
                "stanza_limited_names_other_key_runner",
                file: file,
                credentials: .init(identity: runner.file),
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.masterKey.rawValue,
                "the runner's limited stanza with an info that names alice: a limited opener holds no RIK and cannot tell (R12-RCP-7)"
            )
            file = try edit(&c, "stanza_limited_other_domain", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.stanza)[1]].value[2] = 2
            }
            c.failure(
                "stanza_limited_other_domain_runner",
                file: file,
                credentials: .init(identity: runner.file),
                .wrongCredential,
                writer: Writer.baseKey.rawValue,
                "the runner's stanza moved to domain 2, which has a field: the associated data binds the domain, so it opens for nobody (R2-RCP-3)"
            )
            try c.success(
                "stanza_limited_other_domain_password",
                file: file,
                items: items,
                writer: Writer.baseKey.rawValue,
                "the same file with the password, which opens no stanza (R2-RCP-1)"
            )
            file = try edit(&c, "stanza_limited_for_another_key", as: .limitedRecipient) { f in
                f.fields.append(
                    KeyHolderRewrite.Field(
                        type: Self.stanza,
                        value: KeyHolderRewrite.stanza(
                            wrapping: runnerPayload,
                            to: mallory.identity.recipient,
                            domain: 1,
                            vaultID: vaultID,
                            random: random("stanza_limited_for_another_key")
                        )
                    )
                )
            }
            try c.success(
                "stanza_limited_for_another_key_mallory",
                file: file,
                credentials: .init(identity: mallory.file),
                items: group("deploy"),
                unavailable: 3,
                writer: Writer.limitedRecipient.rawValue,
                "the runner wraps its own keys to mallory's key in a new stanza, with an info it cannot seal: mallory reads what the runner reads (R2-RCP-4)"
            )
            try c.success(
                "stanza_limited_for_another_key_password",
                file: file,
                items: items,
                writer: Writer.limitedRecipient.rawValue,
                "the same file with the password: the open reads no info; listing the recipients does and fails (R12-RCP-4)"
            )
            file = try edit(&c, "stanza_limited_kind_2", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.stanza)[1]].value[0] = 2
            }
            c.failure(
                "stanza_limited_kind_2",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "a limited stanza of kind 2: only kind 1 (X25519) is defined (R2-RCP-1)"
            )
            file = try edit(&c, "stanza_scope_1", as: .baseKey) { f in
                f.fields[Self.positions(f, Self.stanza)[1]].value[1] = 1
            }
            c.failure(
                "stanza_scope_1",
                file: file,
                .structure,
                writer: Writer.baseKey.rawValue,
                "a stanza of scope 1, which is not used (R2-RCP-1)"
            )
            file = try edit(&c, "stanzas_33_mixed", as: .baseKey) { f in
                let at = Self.positions(f, Self.stanza)
                f.fields.insert(
                    contentsOf: Array(repeating: f.fields[at[1]], count: 30),
                    at: at[2] + 1
                )
            }
            c.failure(
                "stanzas_33_mixed",
                file: file,
                .limit,
                writer: Writer.baseKey.rawValue,
                "one full and 32 limited stanzas: the 33rd is limit whatever its scope (R2-RCP-1)"
            )
        }
    }
}
