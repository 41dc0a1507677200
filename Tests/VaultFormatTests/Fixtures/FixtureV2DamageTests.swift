// vault: the format 2.0 damage fixtures (access-group fields, stanzas and grouped records as key
// holders write them), walked from the manifest.

import Foundation
import Testing
import VaultTestSupport

@testable import VaultFormat

@Suite("Fixtures v2-damage")
struct FixtureV2DamageTests {
    static let version = FixtureCatalogV2Damage.folder
    static let cases: [FixtureCase] = (try? FixtureRunner.manifest(version: version).cases) ?? []
    static let checks = ManifestChecks(version: version, cases: cases)

    @Test func manifestLoadsAndCoversEachDamageKind() throws {
        let manifest = try FixtureRunner.manifest(version: Self.version)
        #expect(manifest.format == "vault v2")
        #expect(Set(manifest.cases.map(\.name)).count == manifest.cases.count, "case names are unique")
        let names = Set(manifest.cases.map(\.name))
        for required in [
            "group_name_flipped_password", "group_name_empty", "group_fields_33", "group_field_dropped_password",
            "index_domain_unknown_password", "stanza_duplicate_full_alice", "stanza_names_other_key_alice",
            "record_domain0_claims_group_password", "record_group_claims_other_group_password",
        ] {
            #expect(names.contains(required), "\(required) is missing")
        }
    }

    @Test func everyCaseIsDocumentedInTheSpec() throws { try Self.checks.expectEveryCaseInTheSpec() }

    /// The generator reproduces every landed file byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        try Self.checks.expectGeneratorReproducesTheFolder(try FixtureCatalogV2Damage.generate())
    }

    @Test(arguments: cases)
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        guard let opened = try Self.checks.openAsTheManifestSays(fixture) else { return }
        #expect(opened.snapshot.header.major == 2 && opened.snapshot.header.minor == 0)
        #expect(opened.snapshot.openedByRecipient == (fixture.credentials.identity != nil))
    }

    /// The keys of the folder's vault: the owner's (`MK`) and a holder of `BK` alone.
    static func keys() throws -> (owner: VaultKeys, base: VaultKeys) {
        let good = try FixtureRunner.bytes("v2d_two_groups.vault", version: version)
        let owner = try VaultSnapshot.open(good, with: .password(FixtureCatalogV2Damage.password)).keys
        let vaultID = try VaultHeader.decode(
            Array(good[0..<(try VaultHeader.headerLength(preamble: good.prefix(16), fileLength: good.count))]),
            fileLength: good.count
        ).vaultID
        return (owner, try #require(KeyHolderRewrite.baseKeyHolder(of: owner, vaultID: vaultID)))
    }

    /// Every damaged file is a key holder's edit, not bit rot: its header MAC holds under `HK`
    /// (which a holder of `BK` alone and a limited recipient both hold), and each case names who
    /// can write it.
    @Test(arguments: Set(cases.map(\.file)).sorted())
    func everyFileAuthenticatesUnderTheHeaderKey(_ file: String) throws {
        let bytes = try FixtureRunner.bytes(file, version: Self.version)
        let length = try VaultHeader.headerLength(preamble: bytes.prefix(16), fileLength: bytes.count)
        let (_, base) = try Self.keys()
        #expect(throws: Never.self, "\(file)") {
            try VaultSnapshot.verifyMAC(Array(bytes[0..<length]), keys: base)
        }
        for fixture in Self.cases where fixture.file == file && file != "v2d_two_groups.vault" {
            #expect(
                ["base key", "limited recipient", "master key"].contains(fixture.writer ?? ""),
                "\(fixture.name) names no writer"
            )
        }
    }

    /// Duplicate stanzas of one key are one recipient (R12-RCP-7): the library lists each stanza
    /// in file order, both naming alice; `vaulttool recipients ls` shows her once and warns.
    @Test func duplicateStanza_namesTheSameKeyTwice() throws {
        let bytes = try FixtureRunner.bytes("stanza_duplicate_full.vault", version: Self.version)
        let owner = try VaultSnapshot.open(bytes, with: .password(FixtureCatalogV2Damage.password))
        let recipients = try owner.recipients()
        #expect(recipients.count == 4)
        #expect(recipients[0] == recipients[1])
        #expect(Set(recipients.map(\.key)).count == 3)
    }

    /// A stanza a limited recipient adds for another key carries an info it cannot seal: the
    /// owner's open reads no info, and listing the recipients reports it (R12-RCP-4).
    @Test func stanzaAddedByTheRunner_failsTheOwnersListing() throws {
        let bytes = try FixtureRunner.bytes("stanza_limited_for_another_key.vault", version: Self.version)
        let owner = try VaultSnapshot.open(bytes, with: .password(FixtureCatalogV2Damage.password))
        #expect(throws: VaultFormatError(.headerAuthentication)) { try owner.recipients() }
        #expect(try owner.recipientAccessGroups() == [nil, "deploy", "billing", "deploy"])
    }
}
