// VaultImport tests: the RFC 4180 reader under both CSV formats.

import Testing

@testable import VaultImport

@Suite("CSV")
struct CSVTests {
    @Test func parse_quotedFields_holdCommasNewlinesAndQuotes() throws {
        let rows = try CSV.parse(Array("a,\"b,c\",\"d\ne\",\"say \"\"hi\"\"\"\r\n1,2,3,4\n".utf8))
        #expect(rows == [["a", "b,c", "d\ne", "say \"hi\""], ["1", "2", "3", "4"]])
    }

    @Test func parse_byteOrderMarkAndBlankLines_areDropped() throws {
        let rows = try CSV.parse([0xEF, 0xBB, 0xBF] + Array("x,y\n\n1,2".utf8))
        #expect(rows == [["x", "y"], ["1", "2"]])
    }

    @Test func parse_unclosedQuote_namesTheRowItOpenedIn() {
        #expect {
            try CSV.parse(Array("h1,h2\nok,ok\n\"open,never closed\n".utf8))
        } throws: { error in
            let problem = error as? ImportProblem
            return problem?.reason == "a quoted field is not closed" && problem?.row == 3
        }
    }

    @Test func read_invalidUTF8_isMalformed() {
        #expect(throws: ImportError(.malformed)) { try VaultImporter(format: .csv).read([0x73, 0xFF, 0x0A]) }
    }

    @Test func records_rowWithTooFewFields_isARowLengthErrorWithoutTheSecret() throws {
        let error = try #require(readError(.csv, "service,account,secret\ndb,app,ok\nweb,sup3r-s3cret\n"))
        #expect(error == ImportError(.rowLength))
        #expect(error.row == 3)
        #expect(error.format == .csv)
        #expect(error.description == "the file is not a valid csv export: row 3 has 2 fields; the header has 3")
        #expect(!error.description.contains("sup3r-s3cret"))
    }

    @Test func records_emptyFile_isMalformed() {
        #expect(readError(.keepassCSV, "") == ImportError(.malformed))
    }
}
