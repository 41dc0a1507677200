// vaulttool tests: a git request without a username, answered from a vault large enough that the
// helper reads its internet passwords in parallel chunks.

import Foundation
import Testing

@Suite("Credential helper: large vaults")
struct CredentialHelperScanTests {
    /// 2,400 internet passwords (above the 2,048 where reading splits into chunks), the host asked
    /// for held twice, once early and once in the last chunk: the helper answers with the most
    /// recently modified of the two, as it does for a small vault, and a host held nowhere gets
    /// an empty answer.
    @Test func requestWithoutUsername_findsTheNewestMatchInAnyChunk() throws {
        let w = try Workspace()
        try w.makeVault()
        var items: [String] = []
        for n in 0..<2_400 {
            let host = n == 5 || n == 2_390 ? "shared.example" : "git\(n).example"
            let day = n == 2_390 ? "2026-03-01" : "2026-01-01"
            items.append(
                #"{"class": "internetPassword", "server": "\#(host)", "protocol": "https", "account": "user\#(n)", "#
                    + #""modified": "\#(day)T00:00:00Z", "secret": "secret-\#(n)"}"#
            )
        }
        try w.write(
            "items.json",
            #"{"format": "vault-items", "version": 1, "items": ["# + items.joined(separator: ",\n") + "]}"
        )
        let imported = try w.run(["import", "--password-file", "pw", "--from", "json", "items.json", "v.vault"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let options = ["--vault", "v.vault", "--password-file", "pw"]
        let shared = try w.run(
            ["credential-helper", "git"] + options + ["get"],
            stdin: "protocol=https\nhost=shared.example\n\n"
        )
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stdout == "username=user2390\npassword=secret-2390\n")
        let last = try w.run(
            ["credential-helper", "git"] + options + ["get"],
            stdin: "protocol=https\nhost=git2399.example\n\n"
        )
        #expect(last.stdout == "username=user2399\npassword=secret-2399\n")
        let none = try w.run(
            ["credential-helper", "git"] + options + ["get"],
            stdin: "protocol=https\nhost=nowhere.example\n\n"
        )
        #expect(none.status == 0 && none.stdout.isEmpty)
    }
}
