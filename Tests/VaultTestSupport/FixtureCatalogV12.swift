// vault: the catalog of golden format 1.2 fixtures (recipients), generated from fixed seeds.

import VaultFormat

/// Every fixture of `Fixtures/v1.2`: recipient stanzas (Spec/format-v1.2.md), each case in one file.
///
/// `swift run vault-fixturegen Fixtures/v1.2` writes them; `FixtureV12Tests` proves that the
/// landed files equal what this code makes, byte for byte.
public enum FixtureCatalogV12 {
    /// The password of every fixture (the same as v1).
    public static let password = FixtureCatalog.password

    /// A deterministic identity, and the name of its file in the folder.
    static func identity(_ name: String) -> (identity: RecipientIdentity, file: String) {
        (
            RecipientIdentity.generate(random: SeededRandom(seed: "vault fixtures v1.2 identity: " + name)),
            name + ".identity"
        )
    }

    /// Generates every fixture.
    public static func generate() throws -> FixtureCatalog.Output {
        var c = FixtureCatalog.Builder()
        let alice = identity("alice")
        let bob = identity("bob")
        let carol = identity("carol")
        for person in [alice, bob, carol] {
            c.files[person.file] = person.identity.fileContents.copyBytes()
        }
        try recipients(&c, alice: alice, bob: bob, carol: carol)
        try damaged(&c, alice: alice, bob: bob)
        try removal(&c, alice: alice, bob: bob)
        let manifest = FixtureManifest(
            format: "vault v1.2",
            generator: "swift run vault-fixturegen Fixtures/v1.2",
            cases: c.cases
        )
        c.files["manifest.json"] = try manifest.encoded()
        return FixtureCatalog.Output(files: c.files, manifest: manifest)
    }

    static func maker(_ seed: String, minor: UInt16 = 2) throws -> FixtureMaker {
        try FixtureMaker(seed: seed, slots: [.password(password)], minor: minor)
    }

    typealias Person = (identity: RecipientIdentity, file: String)

    /// The vault of most cases: a password keyslot, alice and bob as recipients, two items.
    static func team(_ seed: String, alice: Person, bob: Person) throws -> FixtureMaker {
        let m = try maker(seed)
        try m.add(service: "db.example.com", account: "deploy", secret: "team-secret-0001")
        try m.add(service: "api.example.com", account: "ci", secret: "team-secret-0002")
        try m.addRecipient(alice.identity.recipient, name: "alice@laptop")
        try m.addRecipient(bob.identity.recipient, name: "ci-deploy")
        return m
    }

    // MARK: - Opening (R12-RCP-1, R12-RCP-3, R12-RCP-5)

    static func recipients(_ c: inout FixtureCatalog.Builder, alice: Person, bob: Person, carol: Person) throws {
        let empty = try maker("empty")
        try c.success(
            "v12_empty",
            file: c.file("v12_empty.vault", empty.bytes()),
            items: [],
            "a 1.2 vault with a password keyslot and no recipient"
        )

        let m = try team("team", alice: alice, bob: bob)
        let file = c.file("v12_recipients.vault", try m.bytes())
        try c.success(
            "v12_recipients_alice",
            file: file,
            credentials: .init(identity: alice.file),
            items: m.items,
            "alice's identity opens the first stanza and reads every item (R12-RCP-3)"
        )
        try c.success(
            "v12_recipients_bob",
            file: file,
            credentials: .init(identity: bob.file),
            items: m.items,
            "bob's identity opens the second stanza (R12-RCP-3)"
        )
        try c.success(
            "v12_recipients_password",
            file: file,
            items: m.items,
            "the creator's password keyslot still opens the vault (R12-RCP-5)"
        )
        c.failure(
            "recipient_wrong_identity",
            file: file,
            credentials: .init(identity: carol.file),
            .wrongCredential,
            "carol is not a recipient: no stanza opens, no keyslot takes an identity (R12-RCP-3)"
        )

        // In a 1.1 file the same field type is unknown and non-critical: ignored, so the identity opens nothing.
        let old = try maker("stanza_in_v11", minor: 1)
        try old.add(service: "old", account: "format", secret: "one")
        try old.addRecipientIgnoringVersion(alice.identity.recipient, name: "alice@laptop")
        let oldFile = c.file("v11_stanza_field_ignored.vault", try old.bytes())
        c.failure(
            "v11_stanza_field_ignored_identity",
            file: oldFile,
            credentials: .init(identity: alice.file),
            .wrongCredential,
            "a 0x0001 field in a 1.1 file is an unknown non-critical field, not a stanza (R12-RCP-1, R-FLD-3)"
        )
        try c.success(
            "v11_stanza_field_ignored_password",
            file: oldFile,
            items: old.items,
            "the same 1.1 file opens with its password; the field is kept as unknown (R-FLD-3)"
        )
    }

    // MARK: - Damaged stanzas (R12-RCP-1, R-HDR-6)

    static func damaged(_ c: inout FixtureCatalog.Builder, alice: Person, bob: Person) throws {
        let m = try team("damaged", alice: alice, bob: bob)
        let good = try m.bytes()
        let first = Surgery.fieldOffset(good, type: RecipientStanza.fieldType) + 6
        var flipped = Surgery.flip(good, at: first + 70)
        Surgery.fixChecksum(&flipped)
        let flippedFile = c.file("recipient_stanza_flipped.vault", flipped)
        c.failure(
            "recipient_stanza_flipped_alice",
            file: flippedFile,
            credentials: .init(identity: alice.file),
            .wrongCredential,
            "a bit of alice's wrapped key flipped (checksum fixed): her stanza no longer opens (R12-RCP-3)"
        )
        c.failure(
            "recipient_stanza_flipped_bob",
            file: flippedFile,
            credentials: .init(identity: bob.file),
            .headerAuthentication,
            "the same file with bob's intact stanza: the header MAC covers alice's stanza (R12-RCP-1, R-HDR-6)"
        )
        c.failure(
            "recipient_stanza_flipped_password",
            file: flippedFile,
            .headerAuthentication,
            "the same file with the password: headerAuthentication (R-HDR-6)"
        )

        let short = Surgery.rewriteHeaderFields(good) { fields in
            fields.map { $0.type == RecipientStanza.fieldType ? ($0.type, Array($0.value.dropLast())) : $0 }
        }
        c.failure(
            "recipient_stanza_short",
            file: c.file("recipient_stanza_short.vault", short),
            .structure,
            "a stanza of 242 bytes: structure, whatever the credential (R12-RCP-1)"
        )
        let kind = Surgery.rewriteHeaderFields(good) { fields in
            fields.map { $0.type == RecipientStanza.fieldType ? ($0.type, [2] + Array($0.value.dropFirst())) : $0 }
        }
        c.failure(
            "recipient_stanza_unknown_kind",
            file: c.file("recipient_stanza_unknown_kind.vault", kind),
            .structure,
            "a stanza of kind 2: structure (R12-RCP-1)"
        )
        let many = Surgery.rewriteHeaderFields(good) { fields in
            let stanza = fields.first { $0.type == RecipientStanza.fieldType }!
            return fields + Array(repeating: stanza, count: 31)
        }
        c.failure(
            "recipient_stanzas_33",
            file: c.file("recipient_stanzas_33.vault", many),
            .limit,
            "33 recipient stanzas: the 33rd is limit when it is met (R12-RCP-1)"
        )
    }

    // MARK: - Removal and rekey (R12-RCP-6)

    static func removal(_ c: inout FixtureCatalog.Builder, alice: Person, bob: Person) throws {
        let m = try team("removal", alice: alice, bob: bob)
        let before = c.file("recipient_before_removal.vault", try m.bytes(minutes: 60))
        try c.success(
            "recipient_before_removal_alice",
            file: before,
            credentials: .init(identity: alice.file),
            items: m.items,
            "generation 1 of the removal case: alice is a recipient (the old copy she may keep)"
        )
        try m.reopen(m.bytes(minutes: 60), with: .password(password))
        try m.removeRecipientAndRekey(at: 0, password: password, at: FixtureCatalog.epoch + 90 * 60_000)
        try m.add(service: "after", account: "removal", secret: "written after alice left")
        let after = c.file("recipient_removed_after_rekey.vault", try m.bytes(minutes: 90))
        c.failure(
            "recipient_removed_after_rekey",
            file: after,
            credentials: .init(identity: alice.file),
            .wrongCredential,
            "alice removed, the vault rekeyed: her identity opens nothing (R12-RCP-6)"
        )
        try c.success(
            "recipient_kept_after_rekey",
            file: after,
            credentials: .init(identity: bob.file),
            items: m.items,
            "bob's stanza was rewrapped from its stored public key: he reads every item (R12-RCP-6)"
        )
    }
}
