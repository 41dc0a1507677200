// vault: the golden fixtures of format v1, walked from the manifest.

import Foundation
import Testing
import VaultFormat
import VaultTestSupport

@Suite("Fixtures v1")
struct FixtureTests {
    static let cases: [FixtureCase] = (try? FixtureRunner.manifest().cases) ?? []

    @Test func manifestLoadsAndCoversEnoughCases() throws {
        let manifest = try FixtureRunner.manifest()
        #expect(manifest.format == "vault v1")
        #expect(manifest.cases.count >= 30)
        #expect(manifest.cases.filter { $0.expect == "failure" }.count >= 15)
        #expect(Set(manifest.cases.map(\.name)).count == manifest.cases.count, "case names are unique")
    }

    @Test func everyCaseIsDocumentedInTheSpec() throws {
        let spec = try String(
            contentsOf: FixtureRunner.fixturesRoot.deletingLastPathComponent().appendingPathComponent(
                "Spec/test-vectors.md"
            ),
            encoding: .utf8
        )
        for fixture in try FixtureRunner.manifest().cases {
            #expect(spec.contains("`\(fixture.name)`"), "\(fixture.name) is missing from Spec/test-vectors.md")
        }
    }

    /// Landed fixtures are frozen: the generator must reproduce every one byte for byte.
    @Test func generatorReproducesEveryLandedFixture() throws {
        let output = try FixtureCatalog.generate()
        let landed = try FileManager.default.contentsOfDirectory(
            atPath: FixtureRunner.fixturesRoot.appendingPathComponent("v1").path
        )
        for name in output.files.keys.sorted() {
            #expect(try FixtureRunner.bytes(name) == output.files[name]!, "\(name) differs from the generator's output")
        }
        let extra = Set(landed).subtracting(output.files.keys).subtracting(["README.md"])
        #expect(extra.isEmpty, "files not made by the generator: \(extra.sorted())")
    }

    @Test(arguments: cases)
    func caseHasTheExpectedOutcome(_ fixture: FixtureCase) throws {
        let file = try FixtureRunner.bytes(fixture.file)
        let credentials = try FixtureRunner.credentials(fixture)
        if fixture.expect == "failure" {
            // This reader implements format 2.0, which changes one 1.x outcome (R2-VER-3).
            let expected = try #require(
                VaultFormatError.Code(name: fixture.errorForVersion2Reader ?? ""),
                "unknown error \(fixture.error ?? "")"
            )
            let error = #expect(throws: VaultFormatError.self) { try FixtureRunner.openFully(file, with: credentials) }
            #expect(error?.code == expected, "\(fixture.name): got \(error.map { "\($0)" } ?? "no error")")
            return
        }
        #expect(fixture.expect == "success")
        let opened = try FixtureRunner.openFully(file, with: credentials)
        let expected = try FixtureRunner.expectedItems(fixture)
        #expect(opened.items.count == expected.count)
        #expect(opened.unavailable == (fixture.unavailable ?? 0))
        let byID = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0) })
        for item in opened.items {
            let want = try #require(byID[item.entry.itemID.description], "unexpected item in \(fixture.name)")
            #expect(
                FixtureRunner.mismatch(item, want) == nil,
                "\(fixture.name): \(FixtureRunner.mismatch(item, want) ?? "")"
            )
        }
        #expect(opened.snapshot.header.isWritable == !(fixture.readOnly ?? false), "R-HDR-3")
        #expect(opened.snapshot.header.weakKeyslots.isEmpty == !(fixture.weakKDF ?? false))
    }

    /// No fixture holds any of its items' services, accounts or secrets in clear.
    @Test(arguments: cases.filter { $0.expect == "success" })
    func fileHoldsNoAttributeOrSecretInClear(_ fixture: FixtureCase) throws {
        let file = try FixtureRunner.bytes(fixture.file)
        for item in try FixtureRunner.expectedItems(fixture) {
            for text in [item.attributes.service, item.attributes.account, item.attributes.server, item.secret ?? ""]
            where text.utf8.count >= 4 {
                #expect(!contains(file, Array(text.utf8)), "\(fixture.name) shows \(text.utf8.count) clear bytes")
            }
        }
    }

    /// R-FLD-3, R-ATT-2: unknown non-critical fields and attributes survive a rewrite.
    @Test func unknownNonCriticalFieldSurvivesRewrite() throws {
        let file = try FixtureRunner.bytes("header_unknown_noncritical.vault")
        let snapshot = try VaultSnapshot.open(file, with: .password(FixtureCatalog.password))
        #expect(snapshot.header.unknownFields.map(\.type) == [0x0123])
        let writer = try VaultWriter(updating: snapshot)
        let rewritten = try VaultSnapshot.open(
            writer.encode(now: FixtureCatalog.epoch),
            with: .password(FixtureCatalog.password)
        )
        #expect(rewritten.header.unknownFields == snapshot.header.unknownFields)
        #expect(rewritten.header.generation == snapshot.header.generation + 1)
        #expect(
            try rewritten.attributes(at: 0).preserved == [PreservedAttribute(tag: 77, value: Array("from v1.7".utf8))]
        )
    }

    /// R-HDR-3: a vault from a newer minor version is not rewritten.
    @Test func newerMinorVersionIsReadOnly() throws {
        let file = try FixtureRunner.bytes("header_minor_future.vault")
        let snapshot = try VaultSnapshot.open(file, with: .password(FixtureCatalog.password))
        #expect(throws: VaultFormatError(.unsupportedVersion)) { try VaultWriter(updating: snapshot) }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        Data(haystack).range(of: Data(needle)) != nil
    }
}

extension FixtureCase: CustomTestStringConvertible {
    public var testDescription: String { name }
}
