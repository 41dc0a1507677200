// vault: the golden fixtures of format 2.0 (recipients limited to one access group), walked
// from the manifest.

import Foundation
import Testing
import VaultFormat
import VaultTestSupport

@Suite("Fixtures v2")
struct FixtureV2Tests {
    static let version = "v2"
    static let cases: [FixtureCase] = (try? FixtureRunner.manifest(version: version).cases) ?? []

    @Test func manifestLoadsAndCoversTheNewRules() throws {
        let manifest = try FixtureRunner.manifest(version: Self.version)
        #expect(manifest.format == "vault v2")
        #expect(Set(manifest.cases.map(\.name)).count == manifest.cases.count, "case names are unique")
        let names = Set(manifest.cases.map(\.name))
        for required in ["v2_groups_runner", "v2_groups_password", "stanza_limited_unknown_domain", "header_major_3"] {
            #expect(names.contains(required))
        }
    }

    static let checks = ManifestChecks(version: version, cases: cases)

    @Test func everyCaseIsDocumentedInTheSpec() throws { try Self.checks.expectEveryCaseInTheSpec() }

    /// The generator reproduces every landed 2.0 fixture byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        try Self.checks.expectGeneratorReproducesTheFolder(try FixtureCatalogV2.generate())
    }

    @Test(arguments: cases)
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        guard let opened = try Self.checks.openAsTheManifestSays(fixture) else { return }
        #expect(opened.snapshot.header.major == 2 && opened.snapshot.header.minor == 0)
        #expect(opened.snapshot.openedByRecipient == (fixture.credentials.identity != nil))
    }
}
