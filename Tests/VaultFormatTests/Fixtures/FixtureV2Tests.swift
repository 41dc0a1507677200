// vault: the golden fixtures of format 2.0 (recipients limited to one access group), walked
// from the manifest.

import Foundation
import Testing
@_spi(Testing) import VaultFormat
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

    @Test func everyCaseIsDocumentedInTheSpec() throws {
        let spec = try String(
            contentsOf: FixtureRunner.fixturesRoot.deletingLastPathComponent().appendingPathComponent(
                "Spec/test-vectors.md"
            ),
            encoding: .utf8
        )
        for fixture in Self.cases {
            #expect(spec.contains("`\(fixture.name)`"), "\(fixture.name) is missing from Spec/test-vectors.md")
        }
    }

    /// The generator reproduces every landed 2.0 fixture byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        let output = try FixtureCatalogV2.generate()
        let landed = try FileManager.default.contentsOfDirectory(
            atPath: FixtureRunner.fixturesRoot.appendingPathComponent(Self.version).path
        )
        for name in output.files.keys.sorted() {
            #expect(
                try FixtureRunner.bytes(name, version: Self.version) == output.files[name]!,
                "\(name) differs from the generator's output"
            )
        }
        let extra = Set(landed).subtracting(output.files.keys).subtracting(["README.md"])
        #expect(extra.isEmpty, "files not made by the generator: \(extra.sorted())")
    }

    @Test(arguments: cases)
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        let file = try FixtureRunner.bytes(fixture.file, version: Self.version)
        let credentials = try FixtureRunner.credentials(fixture, version: Self.version)
        if fixture.expect == "failure" {
            let expected = try #require(VaultFormatError.Code(name: fixture.error ?? ""))
            let error = #expect(throws: VaultFormatError.self) { try FixtureRunner.openFully(file, with: credentials) }
            #expect(error?.code == expected, "\(fixture.name): got \(error.map { "\($0)" } ?? "no error")")
            return
        }
        let opened = try FixtureRunner.openFully(file, with: credentials)
        let expected = try FixtureRunner.expectedItems(fixture, version: Self.version)
        #expect(opened.items.count == expected.count, "\(fixture.name)")
        #expect(opened.unavailable == (fixture.unavailable ?? 0), "\(fixture.name)")
        let byID = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0) })
        for item in opened.items {
            let want = try #require(byID[item.entry.itemID.description], "unexpected item in \(fixture.name)")
            #expect(
                FixtureRunner.mismatch(item, want) == nil,
                "\(fixture.name): \(FixtureRunner.mismatch(item, want) ?? "")"
            )
        }
        #expect(opened.snapshot.header.major == 2 && opened.snapshot.header.minor == 0)
        #expect(opened.snapshot.openedByRecipient == (fixture.credentials.identity != nil))
    }
}
