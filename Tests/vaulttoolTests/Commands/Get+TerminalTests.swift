// vaulttool tests: `get` ends the secret with a newline on a terminal, and not in a pipe.
// From issue 12's list of everyday friction (its help bullet).

import Foundation
import Testing

@Suite("get on a terminal")
struct GetTerminalTests {
    @Test func get_onATerminal_endsWithANewline_butNotInAPipe() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "s", "--account", "a"])
        let arguments = ["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"]
        let terminal = try Tool.runInTerminal(arguments, typed: "", in: w.path)
        #expect(terminal.stdout.hasSuffix("s3cret\r\n"))
        #expect(try w.run(arguments).stdout == "s3cret")
    }
}
