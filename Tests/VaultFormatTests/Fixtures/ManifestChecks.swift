// vault: the checks every fixture folder after v1 shares, walked from its manifest.

import Foundation
import Testing
import VaultFormat
import VaultTestSupport

/// The checks of one fixture folder (`Fixtures/<version>`) that do not depend on its version:
/// each version's suite calls them and adds its own.
struct ManifestChecks {
    let version: String
    let cases: [FixtureCase]

    /// Every case is named in `Spec/test-vectors.md`.
    func expectEveryCaseInTheSpec() throws {
        let spec = try String(
            contentsOf: FixtureRunner.fixturesRoot.deletingLastPathComponent().appendingPathComponent(
                "Spec/test-vectors.md"
            ),
            encoding: .utf8
        )
        for fixture in cases {
            #expect(spec.contains("`\(fixture.name)`"), "\(fixture.name) is missing from Spec/test-vectors.md")
        }
    }

    /// The generator's `output` reproduces every landed file byte for byte, and makes every file
    /// of the folder but its README.
    func expectGeneratorReproducesTheFolder(_ output: FixtureCatalog.Output) throws {
        let landed = try FileManager.default.contentsOfDirectory(
            atPath: FixtureRunner.fixturesRoot.appendingPathComponent(version).path
        )
        for name in output.files.keys.sorted() {
            #expect(
                try FixtureRunner.bytes(name, version: version) == output.files[name]!,
                "\(name) differs from the generator's output"
            )
        }
        let extra = Set(landed).subtracting(output.files.keys).subtracting(["README.md"])
        #expect(extra.isEmpty, "files not made by the generator: \(extra.sorted())")
    }

    /// Opens `fixture` as its manifest says and checks the outcome: the error code of a failure
    /// case, or the items and the unavailable count of a success case. Returns the opened vault of
    /// a success case, for the version's own checks.
    func openAsTheManifestSays(_ fixture: FixtureCase) throws -> FixtureRunner.Opened? {
        let file = try FixtureRunner.bytes(fixture.file, version: version)
        let credentials = try FixtureRunner.credentials(fixture, version: version)
        if fixture.expect == "failure" {
            let expected = try #require(VaultFormatError.Code(name: fixture.error ?? ""))
            let error = #expect(throws: VaultFormatError.self) { try FixtureRunner.openFully(file, with: credentials) }
            #expect(error?.code == expected, "\(fixture.name): got \(error.map { "\($0)" } ?? "no error")")
            return nil
        }
        let opened = try FixtureRunner.openFully(file, with: credentials)
        let expected = try FixtureRunner.expectedItems(fixture, version: version)
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
        return opened
    }

    /// No file of a success case holds any of its items' services, accounts or secrets in clear.
    func expectNoClearText(_ fixture: FixtureCase) throws {
        let file = Data(try FixtureRunner.bytes(fixture.file, version: version))
        for item in try FixtureRunner.expectedItems(fixture, version: version) {
            for text in [item.attributes.service, item.attributes.account, item.secret ?? ""] where text.utf8.count >= 4
            {
                #expect(file.range(of: Data(text.utf8)) == nil, "\(fixture.name) shows \(text.utf8.count) clear bytes")
            }
        }
    }
}
