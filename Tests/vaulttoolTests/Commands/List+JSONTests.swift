// vaulttool tests: `list --json` is written without JSONEncoder (for speed) and must be the same bytes.

import Foundation
import Testing

@Suite("list --json bytes")
struct ListJSONTests {
    /// `get --json` still goes through JSONEncoder: each item of `list --json` must be the same
    /// object, byte for byte, without the secret and indented one level deeper.
    @Test func listJSON_itemsAreTheBytesJSONEncoderWrites() throws {
        let w = try Workspace()
        try w.makeVault()
        let items = """
            {"format": "vault-items", "version": 1, "items": [
              {"class": "genericPassword", "service": "quote\\" back\\\\ slash/ tab\\t nl\\n esc\\u001b del\\u007f",
               "account": "ünïcödé 数据 😀", "label": "l", "comment": "c\\r\\n", "generic": "AAEC",
               "created": "2026-01-01T00:00:00Z", "secret": "s1"},
              {"class": "internetPassword", "server": "ftp.example.net", "protocol": "ftp", "port": 21,
               "account": "anon", "secretBase64": "AP8BAg=="},
              {"class": "genericPassword", "service": "plain", "account": "a", "secret": "s3"}
            ]}
            """
        try w.write("items.json", items)
        let imported = try w.run(["import", "--password-file", "pw", "--from", "json", "items.json", "v.vault"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0)
        let parsed = try #require(try list.json()["items"] as? [[String: Any]])
        #expect(parsed.count == 3)
        #expect(try list.json()["unavailable"] as? Int == 0)
        let ids = parsed.compactMap { $0["id"] as? String }
        #expect(ids == ids.sorted())
        #expect(parsed.contains { $0["service"] as? String == "quote\" back\\ slash/ tab\t nl\n esc\u{1B} del\u{7F}" })
        for id in ids {
            let get = try w.run(["get", "--json", "--password-file", "pw", "--id", id, "v.vault"])
            let lines = get.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("  \"secret\" : ") && !$0.hasPrefix("  \"secretBase64\" : ") }
                .dropLast()  // the final newline
            let block = lines.map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
            #expect(list.stdout.contains(block + ",\n") || list.stdout.contains(block + "\n  ]"), "\(id)")
        }
        #expect(list.stdout.hasPrefix("{\n  \"items\" : [\n    {\n      \"accessGroup\" : "))
        #expect(list.stdout.hasSuffix("\n  ],\n  \"unavailable\" : 0\n}\n"))
    }

    @Test func listJSON_ofAnEmptyVault() throws {
        let w = try Workspace()
        try w.makeVault()
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect(list.stdout == "{\n  \"items\" : [\n\n  ],\n  \"unavailable\" : 0\n}\n")
    }
}
