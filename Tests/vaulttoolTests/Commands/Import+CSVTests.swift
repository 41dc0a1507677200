// vaulttool tests: the CSV reader splits bytes (for speed); multi-byte text, quotes, CRLF and
// newlines inside quotes must come out as before.

import Foundation
import Testing

@Suite("CSV import: fields")
struct CSVParsingTests {
    @Test func multiByteText_quotes_andLineEnds_surviveTheByteSplitter() throws {
        let w = try Workspace()
        try w.makeVault()
        let csv =
            "\u{FEFF}class,service,account,label,secret\r\n"
            + "genericPassword,数据库,ünï,\"line one\nline two\",\"se,cr\"\"et\"\r\n"
            + "genericPassword,😀 svc,acct,\"\",plain\n"
        try w.write("rows.csv", csv)
        let result = try w.run(["import", "--password-file", "pw", "--from", "csv", "rows.csv", "v.vault"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 2 items"))
        let first = try w.run([
            "get", "--json", "--password-file", "pw", "--service", "数据库", "--account", "ünï", "v.vault",
        ])
        .json()
        #expect(first["label"] as? String == "line one\nline two")
        #expect(first["secret"] as? String == "se,cr\"et")
        let second = try w.run(["get", "--password-file", "pw", "--service", "😀 svc", "--account", "acct", "v.vault"])
        #expect(second.stdout == "plain")
    }

    @Test func anUnclosedQuote_isRefused() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("rows.csv", "service,account,secret\ns,a,\"open\n")
        let result = try w.run(["import", "--password-file", "pw", "--from", "csv", "rows.csv", "v.vault"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("a quoted field is not closed"))
    }
}
