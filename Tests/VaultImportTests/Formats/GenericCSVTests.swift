// VaultImport tests: the generic CSV layout (Spec/cli.md 7.6).

import Testing
import VaultIO

@testable import VaultImport

@Suite("Generic CSV")
struct GenericCSVTests {
    @Test func read_row_mapsColumnsAndNotesUnknownOnes() throws {
        let batch = try read(
            .csv,
            "class,server,port,account,synchronizable,created,secret,colour\n"
                + "internetPassword,db.example,5432,app,yes,2024-01-01T00:00:00Z,pw,blue\n"
        )
        let entry = try #require(batch.entries.first)
        #expect(entry.name == "row 2 (db.example, app)")
        #expect(entry.itemClass == .internetPassword)
        #expect(entry.accessibility == .whenUnlocked)
        #expect(entry.attributes.port == 5432)
        #expect(entry.attributes.synchronizable)
        #expect(entry.attributes.creationDate == 1_704_067_200_000)
        #expect(entry.secretText == "pw")
        #expect(batch.notes == ["column 'colour' ignored"])
    }

    @Test func read_badCells_skipTheirRowWithTheColumnNamed() throws {
        let batch = try read(
            .csv,
            "service,port,created,accessibility,secretBase64\n"
                + "a,99999,,,AA==\n"
                + "b,,yesterday,,AA==\n"
                + "c,,,sometimes,AA==\n"
                + "d,,,,%%s3cret%%\n"
                + "e,,,,AA==\n"
        )
        #expect(batch.entries.map(\.name) == ["row 6 (e)"])
        #expect(
            batch.skipped == [
                ImportSkip(entry: "row 2", reason: .invalid("port '99999' is not a number from 0 to 65535")),
                ImportSkip(entry: "row 3", reason: .invalid("'yesterday' is not an RFC 3339 date")),
                ImportSkip(entry: "row 4", reason: .invalid("unknown accessibility 'sometimes'")),
                ImportSkip(entry: "row 5", reason: .invalid("secretBase64 is not base64")),
            ]
        )
    }

    @Test func read_withoutSecretColumn_namesIt() throws {
        let error = try #require(readError(.csv, "service,account\ns,a\n"))
        #expect(error == ImportError(.missingField))
        #expect(error.field == "secret")
        #expect(error.description == "the file is not a valid csv export: no 'secret' column")
    }
}
