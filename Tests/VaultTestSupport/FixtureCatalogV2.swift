// vault: the catalog of golden format 2.0 fixtures (recipients limited to one access group).

import VaultFormat

/// Every fixture of `Fixtures/v2` (Spec/format-v2.md), each case in one file.
///
/// `swift run vault-fixturegen Fixtures/v2` writes them; `FixtureV2Tests` proves that the landed
/// files equal what this code makes, byte for byte.
public enum FixtureCatalogV2 {
    /// The password of every fixture (the same as v1).
    public static let password = FixtureCatalog.password

    static func identity(_ name: String) -> (identity: RecipientIdentity, file: String) {
        (
            RecipientIdentity.generate(random: SeededRandom(seed: "vault fixtures v2 identity: " + name)),
            name + ".identity"
        )
    }

    typealias Person = (identity: RecipientIdentity, file: String)

    /// Generates every fixture.
    public static func generate() throws -> FixtureCatalog.Output {
        var c = FixtureCatalog.Builder()
        let alice = identity("alice")
        let runner = identity("runner")
        for person in [alice, runner] { c.files[person.file] = person.identity.fileContents.copyBytes() }
        try groups(&c, alice: alice, runner: runner)
        let manifest = FixtureManifest(
            format: "vault v2",
            generator: "swift run vault-fixturegen Fixtures/v2",
            cases: c.cases
        )
        c.files["manifest.json"] = try manifest.encoded()
        return FixtureCatalog.Output(files: c.files, manifest: manifest)
    }

    /// A 1.2 vault with `deploy`, `billing` and ungrouped items, migrated to 2.0, with alice as a
    /// full recipient and the runner limited to `deploy`. Returns the maker and the deploy IDs.
    static func team(_ seed: String, alice: Person, runner: Person) throws -> (FixtureMaker, Set<String>) {
        let m = try FixtureMaker(seed: seed, slots: [.password(password)], minor: 2)
        var deploy = Set<String>()
        for (service, group, protection) in [
            ("db.example.com", "deploy", ProtectionClass.whenUnlocked), ("registry", "deploy", .always),
            ("bank", "billing", .whenUnlocked), ("invoices", "billing", .always), ("wiki", "", .always),
        ] {
            var attributes = ItemAttributes(service: service, account: "ci")
            attributes.accessGroup = group
            let draft = try m.add(
                .genericPassword,
                protection,
                attributes: attributes,
                secret: Array("\(service)-secret".utf8)
            )
            if group == "deploy" { deploy.insert(draft.id.description) }
        }
        try m.upgradeToVersion2()
        try m.addRecipient(alice.identity.recipient, name: "alice@laptop")
        try m.addRecipient(runner.identity.recipient, name: "ci-deploy", limitedTo: "deploy")
        return (m, deploy)
    }

    static func groups(_ c: inout FixtureCatalog.Builder, alice: Person, runner: Person) throws {
        let (m, deploy) = try team("groups", alice: alice, runner: runner)
        let good = try m.bytes()
        let file = c.file("v2_groups.vault", good)
        try c.success(
            "v2_groups_password",
            file: file,
            items: m.items,
            "the password keyslot reads every item of every key domain (R2-KEY-1)"
        )
        try c.success(
            "v2_groups_alice",
            file: file,
            credentials: .init(identity: alice.file),
            items: m.items,
            "a scope-0 stanza wraps MK: alice reads every item (R12-RCP-3)"
        )
        try c.success(
            "v2_groups_runner",
            file: file,
            credentials: .init(identity: runner.file),
            items: m.items.filter { deploy.contains($0.id) },
            unavailable: m.items.count - deploy.count,
            "the runner's stanza is limited to deploy: it reads the deploy items, every other is "
                + "keyUnavailable (R2-RCP-3, R2-RCP-4)"
        )

        func rewritten(_ name: String, _ edit: ([(UInt16, [UInt8])]) -> [(UInt16, [UInt8])]) -> String {
            c.file(name, Surgery.rewriteHeaderFields(good, edit))
        }
        let group = AccessGroupEntry.fieldType
        c.failure(
            "group_field_short",
            file: rewritten("group_field_short.vault") {
                $0.map { $0.0 == group ? ($0.0, Array($0.1.dropLast())) : $0 }
            },
            .structure,
            "an access-group field of 105 bytes (R2-GRP-1)"
        )
        c.failure(
            "group_domain_zero",
            file: rewritten("group_domain_zero.vault") {
                $0.map { $0.0 == group ? ($0.0, [0] + $0.1.dropFirst()) : $0 }
            },
            .structure,
            "an access-group field of domain 0 (R2-GRP-1)"
        )
        c.failure(
            "group_domains_repeated",
            file: rewritten("group_domains_repeated.vault") { fields in
                fields + fields.filter { $0.0 == group }
            },
            .structure,
            "the same domain twice: domains must be strictly ascending (R2-GRP-1)"
        )
        let stanza = RecipientStanza.fieldType
        c.failure(
            "stanza_limited_unknown_domain",
            file: rewritten("stanza_limited_unknown_domain.vault") { fields in
                fields.map { $0.0 == stanza && $0.1[1] == 2 ? ($0.0, Array($0.1[0..<2]) + [7] + $0.1[3...]) : $0 }
            },
            .structure,
            "a limited stanza naming domain 7, which has no access-group field (R2-RCP-1)"
        )
        c.failure(
            "stanza_limited_short",
            file: rewritten("stanza_limited_short.vault") { fields in
                fields.map { $0.0 == stanza && $0.1[1] == 2 ? ($0.0, Array($0.1.dropLast())) : $0 }
            },
            .structure,
            "a limited stanza of 339 bytes (R2-RCP-1)"
        )
        var flipped = Surgery.flip(good, at: Surgery.fieldOffset(good, type: stanza) + 6 + 243 + 6 + 80)
        Surgery.fixChecksum(&flipped)
        let flippedFile = c.file("stanza_limited_flipped.vault", flipped)
        c.failure(
            "stanza_limited_flipped_runner",
            file: flippedFile,
            credentials: .init(identity: runner.file),
            .wrongCredential,
            "a bit of the runner's wrapped keys flipped (checksum fixed): its stanza no longer opens (R2-RCP-3)"
        )
        c.failure(
            "stanza_limited_flipped_password",
            file: flippedFile,
            .headerAuthentication,
            "the same file with the password: the MAC covers every stanza (R-HDR-6)"
        )
        var future = good
        Surgery.poke(&future, at: 8, value: 3, size: 2)
        c.failure(
            "header_major_3",
            file: c.file("header_major_3.vault", future),
            .unsupportedVersion,
            "major 3: needs a newer version, checked before the checksum (R-HDR-2, R2-VER-1)"
        )
    }
}
