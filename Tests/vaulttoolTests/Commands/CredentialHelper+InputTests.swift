// vaulttool tests: what the credential helpers accept from their callers.

import Foundation
import Testing

@Suite("Helper input: bounded, and parsed as git parses it")
struct HelperInputTests {
    @Test func gitHelper_refusesAnInputLargerThan64KiB_andChangesNothing() throws {
        let w = try Workspace()
        try w.makeVault()
        let padding = String(repeating: "x", count: 70 << 10)
        let store = try w.run(
            ["credential-helper", "git", "--vault", "v.vault", "--password-file", "pw", "store"],
            stdin: "protocol=https\nhost=a.example\nusername=bob\npassword=p\nwwwauth[]=\(padding)\n\n"
        )
        #expect(store.status == 64)
        #expect(store.stderr.contains("larger than 64 KiB"))
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(!list.stdout.contains("a.example"))
    }

    @Test func gitHelper_url_endsTheHostAtAQueryOrFragment() throws {
        let w = try Workspace()
        try w.makeVault()
        let options = ["credential-helper", "git", "--vault", "v.vault", "--password-file", "pw"]
        let store = try w.run(
            options + ["store"],
            stdin: "url=https://bob@git.example?x=1\npassword=from-url\n\n"
        )
        #expect(store.status == 0, "\(store.stderr)")
        let get = try w.run(options + ["get"], stdin: "protocol=https\nhost=git.example\n\n")
        #expect(get.stdout == "username=bob\npassword=from-url\n")
    }
}
