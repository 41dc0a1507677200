// vaulttool tests: how get chooses between access groups (Spec/cli.md, "Selecting items").

import Foundation
import Testing

@Suite("Selecting items")
struct SelectionTests {
    @Test func get_withoutAccessGroup_prefersTheDefaultGroup_overAnotherGroup() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("in-default", ["--service", "api", "--account", "bot"])
        try w.set("in-group", ["--service", "api", "--account", "bot", "--access-group", "team"])
        let plain = try w.run(["get", "--password-file", "pw", "--service", "api", "--account", "bot", "v.vault"])
        #expect(plain.status == 0 && plain.stdout == "in-default", "\(plain.stderr)")
        let grouped = try w.run([
            "get", "--password-file", "pw", "--service", "api", "--account", "bot", "--access-group", "team",
            "v.vault",
        ])
        #expect(grouped.status == 0 && grouped.stdout == "in-group", "\(grouped.stderr)")
    }

    @Test func get_withoutAccessGroup_findsTheOnlyItem_inAnotherGroup() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("in-group", ["--service", "api", "--account", "bot", "--access-group", "team"])
        let get = try w.run(["get", "--password-file", "pw", "--service", "api", "--account", "bot", "v.vault"])
        #expect(get.status == 0 && get.stdout == "in-group", "\(get.stderr)")
    }

    @Test func get_withoutAccount_stillReportsAmbiguity() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("one", ["--service", "api", "--account", "a"])
        try w.set("two", ["--service", "api", "--account", "b"])
        let get = try w.run(["get", "--password-file", "pw", "--service", "api", "v.vault"])
        #expect(get.status == 1)
        #expect(get.stderr.hasPrefix("Error: 2 items match"))
    }
}
