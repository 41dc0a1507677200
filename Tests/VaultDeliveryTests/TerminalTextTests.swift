// VaultDelivery tests: text made safe for a terminal.

import Testing
import VaultDelivery

@Suite("TerminalText")
struct TerminalTextTests {
    @Test func escaped_writesControlsAsEscapes() {
        #expect(TerminalText.escaped("plain") == "plain")
        #expect(TerminalText.escaped("a\nb\u{1B}[2J\u{7F}") == "a\\nb\\e[2J\\x7F")
        #expect(TerminalText.escaped("x\u{202E}y") == "x\\u{202E}y")
    }

    /// One quoting for git-diff's view and vaulttool's damage lines: before, the damage lines
    /// had their own, which let bidirectional overrides and U+2028 through.
    @Test func quoted_isAJSONStringLiteralWithEveryControlEscaped() {
        #expect(TerminalText.quoted("plain") == "\"plain\"")
        #expect(TerminalText.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(TerminalText.quoted("a\nb\r\tc") == "\"a\\nb\\r\\tc\"")
        #expect(TerminalText.quoted("\u{1B}[2J\u{7F}\u{9B}") == "\"\\u001b[2J\\u007f\\u009b\"")
        #expect(TerminalText.quoted("x\u{202E}y\u{2028}z") == "\"x\\u202ey\\u2028z\"")
        #expect(TerminalText.quoted("é 日本") == "\"é 日本\"")
    }

    @Test func isPrintable_allowsTabAndNewlineOnly() {
        #expect(TerminalText.isPrintable(Array("a\tb\nc é".utf8)))
        #expect(!TerminalText.isPrintable(Array("a\rb".utf8)))
        #expect(!TerminalText.isPrintable([0xFF]))
    }

    @Test func width_countsWideCharactersTwice() {
        #expect(TerminalText.width("ab") == 2)
        #expect(TerminalText.width("日本") == 4)
        #expect(TerminalText.padded("日", to: 4) == "日  ")
    }
}
