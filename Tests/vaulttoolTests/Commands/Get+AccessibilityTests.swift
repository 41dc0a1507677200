// vaulttool: `get --accessibility` pins the protection class the caller expects (issue 9, section 5).

import Testing

@Suite("get --accessibility")
struct AccessibilityPinTests {
    @Test func get_withMatchingAccessibility_printsTheSecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app", "--accessibility", "whenUnlocked"])
        let result = try w.run(
            [
                "get", "--password-file", "pw", "--service", "db", "--account", "app", "--accessibility",
                "whenUnlocked",
                "v.vault",
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "s3cret")
    }

    /// The class changed behind the caller's back (here through `set`; an attacker with only the base
    /// key can do it by writing an older record): the pinned `get` refuses and prints no secret.
    @Test func get_whenClassDiffers_failsClearly_andPrintsNothing() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app", "--accessibility", "whenUnlocked"])
        try w.set("s3cret", ["--service", "db", "--account", "app", "--accessibility", "always"])
        for selector in [["--service", "db", "--account", "app"], ["--service", "db"]] {
            let result = try w.run(
                ["get", "--password-file", "pw"] + selector + ["--accessibility", "whenUnlocked", "v.vault"]
            )
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(
                result.stderr
                    == "Error: The item's accessibility is always, not whenUnlocked as expected; it was changed, "
                    + "possibly by someone holding only the vault's base key; nothing was printed\n"
            )
        }
        let json = try w.run(
            ["get", "--json", "--password-file", "pw", "--service", "db", "--accessibility", "whenUnlocked", "v.vault"]
        )
        #expect(json.status == 1)
        #expect(json.stdout == "")
    }

    @Test func get_withUnknownAccessibility_isUsageError() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run([
            "get", "--password-file", "pw", "--service", "db", "--accessibility", "sometimes", "v.vault",
        ])
        #expect(result.status == 64)
    }
}
