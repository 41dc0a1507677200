// vaulttool tests: `list` escapes control characters and aligns by display width (issue 12, section 3).

import Foundation
import Testing

@Suite("list: terminal-safe table")
struct ListDisplayTests {
    /// Columns on a terminal: two for the CJK ideographs used here; a character with combining
    /// marks is one cluster.
    func columns(_ text: Substring) -> Int {
        text.reduce(0) { width, character in
            let scalar = character.unicodeScalars.first!.value
            return width + ((0x4E00...0x9FFF).contains(scalar) ? 2 : 1)
        }
    }

    @Test func controlCharacters_areEscaped_andRowsStayOneLineEach() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("x", ["--service", "evil\u{1B}]0;owned\u{07}title", "--account", "acct1"])
        try w.set("x", ["--service", "two\nlines\r", "--account", "acct2", "--label", "tab\there"])
        try w.set("x", ["--service", "c1\u{9B}31m and \u{202E}bidi", "--account", "acct3"])
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!list.stdoutBytes.contains(0x1B))
        #expect(!list.stdoutBytes.contains(0x07))
        #expect(!list.stdoutBytes.contains(0x0D))
        #expect(!list.stdoutBytes.contains(0x09))
        #expect(!list.stdout.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E })
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(list.stdout.contains(#"evil\e]0;owned\x07title"#))
        #expect(list.stdout.contains(#"two\nlines\r"#))
        #expect(list.stdout.contains(#"tab\there"#))
        #expect(list.stdout.contains(#"c1\u{009B}31m and \u{202E}bidi"#))
    }

    @Test func wideAndCombiningText_isAlignedByDisplayWidth() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("x", ["--service", "数据库", "--account", "acct1"])
        try w.set("x", ["--service", "cafe\u{301} cre\u{300}me", "--account", "acct2"])
        try w.set("x", ["--service", "plain-ascii-service", "--account", "acct3"])
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        var starts = Set<Int>()
        for marker in ["ACCOUNT", "acct1", "acct2", "acct3"] {
            let line = try #require(lines.first { $0.contains(marker) })
            let range = try #require(line.range(of: marker))
            starts.insert(columns(line[..<range.lowerBound]))
        }
        #expect(starts.count == 1, "the ACCOUNT column starts at columns \(starts.sorted())")
    }
}
