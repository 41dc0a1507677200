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
