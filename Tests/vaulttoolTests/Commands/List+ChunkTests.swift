// vaulttool tests: `list` of a vault large enough to be read in parallel chunks (issue 12, §4 targets)
// still prints every item once, in the documented order.

import Foundation
import Testing

@Suite("list: chunked rendering")
struct ListChunkTests {
    /// More items than one chunk reads (ItemScan splits from 2,048 items on), imported in an
    /// order unlike the table's, with services shared by several accounts and a wide cell in
    /// the last chunk, which must widen the column of every chunk's rows.
    static let count = 2_600

    static func importFile() -> String {
        var items: [String] = []
        for n in 0..<count {
            // Descending services, accounts within a service out of order.
            let service = String(format: "svc-%04d", (count - n) / 3)
            let account = n % 3 == 0 ? "b-\(n)" : "a-\(n)"
            items.append(
                #"{"class": "genericPassword", "service": "\#(service)", "account": "\#(account)", "secret": "s"}"#
            )
        }
        items.append(#"{"class": "genericPassword", "service": "zzz-数据数据数据数据-wide", "account": "last", "secret": "s"}"#)
        return #"{"format": "vault-items", "version": 1, "items": ["# + items.joined(separator: ",\n") + "]}"
    }

    /// `v.vault` holding the items of ``importFile()``.
    func importedVault() throws -> Workspace {
        let w = try Workspace()
        try w.makeVault()
        try w.write("items.json", Self.importFile())
        let imported = try w.run(["import", "--password-file", "pw", "--from", "json", "items.json", "v.vault"])
        #expect(imported.status == 0, "\(imported.stderr)")
        return w
    }

    @Test func table_listsEveryItemOnce_sortedByServiceThenAccount_andAligned() throws {
        let w = try importedVault()
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = list.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == Self.count + 1)
        let keys = rows.map { [$0[2], $0[3]] }
        let expected = keys.sorted { a, b in
            a[0] != b[0]
                ? a[0].utf8.lexicographicallyPrecedes(b[0].utf8) : a[1].utf8.lexicographicallyPrecedes(b[1].utf8)
        }
        #expect(keys == expected)
        #expect(Set(rows.map { $0[3] }).count == Self.count + 1)
        // Every row's ACCOUNT column starts where the header's does: the wide cell of the last
        // chunk padded the rows of the first.
        let lines = list.stdout.split(separator: "\n")
        let header = try #require(lines.first)
        let accountColumn = try #require(header.range(of: "ACCOUNT")).lowerBound
        let offset = header.distance(from: header.startIndex, to: accountColumn)
        for line in lines.dropFirst() where !line.contains("数据") {
            #expect(line.dropFirst(offset).hasPrefix("a-") || line.dropFirst(offset).hasPrefix("b-"), "\(line)")
        }
    }

    @Test func json_listsEveryItemOnce_sortedByID() throws {
        let w = try importedVault()
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0, "\(list.stderr)")
        let items = try #require(try list.json()["items"] as? [[String: Any]])
        let ids = items.compactMap { $0["id"] as? String }
        #expect(ids.count == Self.count + 1)
        #expect(Set(ids).count == ids.count)
        #expect(ids == ids.sorted())
        #expect(Set(items.compactMap { $0["account"] as? String }).count == Self.count + 1)
    }
}
