// vaulttool tests: --server names compare without case, and --port 0 means no port, in every command
// that selects items.
// From issue 12's list of everyday friction (its help bullet).

import Foundation
import Testing

@Suite("Selecting items: server and port")
struct ItemSelectorServerTests {
    @Test func serverNames_compareWithoutCase() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("token", ["--server", "GitHub.COM", "--account", "ci"])
        let get = try w.run(["get", "--password-file", "pw", "--server", "github.com", "--account", "ci", "v.vault"])
        #expect(get.stdout == "token")
        let list = try w.run(["list", "--json", "--password-file", "pw", "--server", "GITHUB.com", "v.vault"])
        let items = try #require(try list.json()["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["server"] as? String == "github.com")
        // Setting it again in another case updates the same item.
        let update = try w.run(
            ["set", "--password-file", "pw", "--server", "github.com", "--account", "ci", "v.vault"],
            stdin: "new"
        )
        #expect(update.stdout.hasPrefix("Updated item "))
    }

    @Test func portZero_meansNoPort_everywhere() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("a", ["--server", "example.com", "--account", "u", "--port", "0"])
        try w.set("b", ["--server", "example.com", "--account", "u", "--port", "8443"])
        let none = try w.run([
            "get", "--password-file", "pw", "--server", "example.com", "--account", "u", "--port", "0", "v.vault",
        ])
        #expect(none.stdout == "a")
        let json = try w.run([
            "list", "--json", "--password-file", "pw", "--server", "example.com", "--port", "0", "v.vault",
        ])
        let items = try #require(try json.json()["items"] as? [[String: Any]])
        #expect(items.map { $0["port"] as? Int } == [0])
        let bad = try w.run(["list", "--password-file", "pw", "--port", "65536", "v.vault"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("from 0 (no port) to 65535"))
    }
}
