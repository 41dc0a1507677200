// vaulttool tests: every error message has one style.
// From issue 12's list of everyday friction (its help bullet).

import Foundation
import Testing

@Suite("Error message style")
struct ErrorReportStyleTests {
    /// One style for every error: `Error: ` and a sentence that starts with a capital letter and has no final period.
    @Test func errorMessages_haveOneStyle() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("bad", "wrong password\n")
        let runs = [
            ["list", "--bogus", "v.vault"],  // usage
            ["get", "--password-file", "bad", "--service", "s", "v.vault"],  // wrong credential
            ["get", "--password-file", "pw", "--service", "nothing", "v.vault"],  // not found
            ["list", "--password-file", "pw", "missing.vault"],  // file system
            ["create", "--password-file", "pw", "v.vault"],  // exists
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],  // empty secret
        ]
        for arguments in runs {
            let result = try w.run(arguments)
            #expect(result.status != 0)
            let line = try #require(result.stderr.split(separator: "\n").first, "\(arguments)")
            #expect(line.hasPrefix("Error: "), "\(line)")
            #expect(line.dropFirst(7).first?.isUppercase == true, "\(line)")
            #expect(!line.hasSuffix("."), "\(line)")
        }
    }
}
