// vault: the golden fixtures of format 1.2 (recipients), walked from the manifest.

import Foundation
import Testing
import VaultFormat
import VaultTestSupport

@Suite("Fixtures v1.2")
struct FixtureV12Tests {
    static let version = "v1.2"
    static let cases: [FixtureCase] = (try? FixtureRunner.manifest(version: version).cases) ?? []

    @Test func manifestLoadsAndCoversTheNewRules() throws {
        let manifest = try FixtureRunner.manifest(version: Self.version)
        #expect(manifest.format == "vault v1.2")
        #expect(Set(manifest.cases.map(\.name)).count == manifest.cases.count, "case names are unique")
        let names = Set(manifest.cases.map(\.name))
        for required in [
            "v12_recipients_alice", "recipient_wrong_identity", "recipient_stanza_flipped_bob",
            "recipient_removed_after_rekey", "recipient_kept_after_rekey", "v11_stanza_field_ignored_identity",
        ] {
            #expect(names.contains(required))
        }
    }

    static let checks = ManifestChecks(version: version, cases: cases)

    @Test func everyCaseIsDocumentedInTheSpec() throws { try Self.checks.expectEveryCaseInTheSpec() }

    /// The generator reproduces every landed 1.1 fixture byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        try Self.checks.expectGeneratorReproducesTheFolder(try FixtureCatalogV12.generate())
    }

    @Test(arguments: cases)
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        guard let opened = try Self.checks.openAsTheManifestSays(fixture) else { return }
        #expect(opened.snapshot.header.minor == (fixture.file.hasPrefix("v11_") ? 1 : 2))
        #expect(opened.snapshot.openedByRecipient == (fixture.credentials.identity != nil))
        #expect(opened.snapshot.header.isWritable == !(fixture.readOnly ?? false))
        #expect(opened.snapshot.header.weakKeyslots.isEmpty == !(fixture.weakKDF ?? false))
    }

    /// No 1.2 fixture holds any of its items' services, accounts or secrets in clear.
    @Test(arguments: cases.filter { $0.expect == "success" })
    func fileHoldsNoAttributeOrSecretInClear(_ fixture: FixtureCase) throws {
        try Self.checks.expectNoClearText(fixture)
    }

    /// Spec/format-v1.2.md section 7.2: no vault names its recipients in clear, neither their
    /// public keys nor their names.
    @Test func noVaultShowsARecipientKeyOrName() throws {
        var keys = [[UInt8]]()
        for name in ["alice", "bob", "carol"] {
            let identity = try RecipientIdentity(
                fileContents: try FixtureRunner.bytes(name + ".identity", version: Self.version)
            )
            keys.append(identity.recipient.bytes)
        }
        for file in Set(Self.cases.map(\.file)) {
            let bytes = Data(try FixtureRunner.bytes(file, version: Self.version))
            for needle in keys + [Array("alice@laptop".utf8), Array("ci-deploy".utf8)] {
                #expect(bytes.range(of: Data(needle)) == nil, "\(file) shows a recipient in clear")
            }
        }
    }

    /// R12-MIG-1: a 1.1 file with an unknown 0x0001 field is not raised to 1.2, where the field
    /// would be read as a stanza.
    @Test func migration_refusesAnUnknownField0x0001() throws {
        let file = try FixtureRunner.bytes("v11_stanza_field_ignored.vault", version: Self.version)
        var writer = try VaultWriter(
            updating: try VaultSnapshot.open(file, with: .password(FixtureCatalogV12.password))
        )
        #expect(writer.header.unknownFields.map(\.type) == [RecipientStanza.fieldType])
        let result = Result { () throws in try writer.upgradeToVersion12() }
        #expect(throws: VaultFormatError(.invalidParameter)) { try result.get() }
        #expect(writer.header.minor == 1)
    }

    /// The old-copy attack (issue 9 §1) with an identity: alice kept generation 1 and her identity;
    /// after her removal and the rekey, the keys of her old copy open nothing of the new file.
    @Test func removedRecipient_oldCopyAttack_readsNothingNew() throws {
        let alice = try RecipientIdentity(
            fileContents: try FixtureRunner.bytes("alice.identity", version: Self.version)
        )
        let attack = try OldCopyAttack.secrets(
            current: try FixtureRunner.bytes("recipient_removed_after_rekey.vault", version: Self.version),
            oldCopy: try FixtureRunner.bytes("recipient_before_removal.vault", version: Self.version),
            oldCredentials: .identity(alice)
        )
        #expect(attack == nil)
    }

    /// Without the rekey, the same old copy would read what is written later (why rm rekeys).
    @Test func removedRecipient_withoutRekey_oldCopyStillReads() throws {
        let alice = try RecipientIdentity(
            fileContents: try FixtureRunner.bytes("alice.identity", version: Self.version)
        )
        let old = try FixtureRunner.bytes("recipient_before_removal.vault", version: Self.version)
        var writer = try VaultWriter(updating: try VaultSnapshot.open(old, with: .password(FixtureCatalogV12.password)))
        try writer.removeRecipient(at: 0)
        try writer.put(
            ItemDraft(
                id: ItemID(random: SystemRandom()),
                attributes: ItemAttributes(service: "later", account: "x"),
                secret: SecretBytes(utf8: "later")
            )
        )
        let attack = try OldCopyAttack.secrets(
            current: writer.encode(now: 0),
            oldCopy: old,
            oldCredentials: .identity(alice)
        )
        #expect(attack?.contains("later") == true)
    }
}
