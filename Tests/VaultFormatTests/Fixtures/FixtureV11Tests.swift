// vault: the golden fixtures of format 1.1, walked from the manifest.

import Foundation
import Testing
import VaultFormat
import VaultTestSupport

@Suite("Fixtures v1.1")
struct FixtureV11Tests {
    static let version = "v1.1"
    static let cases: [FixtureCase] = (try? FixtureRunner.manifest(version: version).cases) ?? []

    @Test func manifestLoadsAndCoversTheNewRules() throws {
        let manifest = try FixtureRunner.manifest(version: Self.version)
        #expect(manifest.format == "vault v1.1")
        #expect(Set(manifest.cases.map(\.name)).count == manifest.cases.count, "case names are unique")
        let names = Set(manifest.cases.map(\.name))
        for required in [
            "record_own_device_nonce_flipped", "v11_password_nfc_typed_decomposed", "kdf_total_work_too_large",
            "v11_migrated_from_v1",
        ] {
            #expect(names.contains(required))
        }
    }

    static let checks = ManifestChecks(version: version, cases: cases)

    @Test func everyCaseIsDocumentedInTheSpec() throws { try Self.checks.expectEveryCaseInTheSpec() }

    /// The generator reproduces every landed 1.1 fixture byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        try Self.checks.expectGeneratorReproducesTheFolder(try FixtureCatalogV11.generate())
    }

    @Test(arguments: cases)
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        guard let opened = try Self.checks.openAsTheManifestSays(fixture) else { return }
        #expect(opened.snapshot.header.minor == 1)
        #expect(opened.snapshot.header.isWritable == !(fixture.readOnly ?? false))
        #expect(opened.snapshot.header.weakKeyslots.isEmpty == !(fixture.weakKDF ?? false))
    }

    /// No 1.1 fixture holds any of its items' services, accounts or secrets in clear.
    @Test(arguments: cases.filter { $0.expect == "success" })
    func fileHoldsNoAttributeOrSecretInClear(_ fixture: FixtureCase) throws {
        try Self.checks.expectNoClearText(fixture)
    }

    /// R11-DEV-1: every device-bound item this device wrote in a 1.1 fixture carries its tag.
    @Test func ownDeviceItemsCarryTheirTag() throws {
        let fixture = try #require(Self.cases.first { $0.name == "v11_protection_classes" })
        let opened = try FixtureRunner.openFully(
            try FixtureRunner.bytes(fixture.file, version: Self.version),
            with: try FixtureRunner.credentials(fixture, version: Self.version)
        )
        #expect(try opened.snapshot.verifyReport().ownDeviceItems == 4)
    }

    /// The same nonce flip in the frozen 1.0 fixture still reads as foreign (1.0 attribution):
    /// the behaviour format 1.1 fixes.
    @Test func nonceFlipInV10File_stillReadsForeign() throws {
        let fixture = try #require(try FixtureRunner.manifest().cases.first { $0.name == "v1_protection_classes" })
        let file = try FixtureRunner.bytes(fixture.file)
        let credentials = try FixtureRunner.credentials(fixture)
        let snapshot = try VaultSnapshot.open(file, with: credentials)
        let bound = try #require(
            try snapshot.index.entries.firstIndex { $0.protectionClass.isDeviceBound }
        )
        var damaged = file
        damaged[snapshot.recordsOffset + (try snapshot.index.offsets[bound]) + 3] ^= 0x01
        let report = try VaultSnapshot.open(damaged, with: credentials).verifyReport()
        #expect(report.foreign == 1)
    }
}
