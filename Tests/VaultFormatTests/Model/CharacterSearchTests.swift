// VaultFormat tests: the search that keeps lookups out of _StringProcessing answers as it does.

import Testing

@testable import VaultFormat

@Suite("Character search in strings")
struct CharacterSearchTests {
    /// Texts with the needle at the start, the end, twice, overlapping, after multi-byte
    /// characters, and not at all; and texts where a combining mark, a zero-width joiner or a
    /// prepended scalar makes the ':' or '/' part of a longer Character (then it is not found).
    static let texts = [
        "https://github.com", "://", "a://b://c", "::://", "é://x", "🔑https://k", "e\u{301}://x",
        "no scheme", "", ":/", "github.com:443", "[::1]:8443", "ab:/:/", "x:😀//",
        "https://\u{301}host", "a:\u{301}b", "h://\u{200D}x", "x\u{600}://h", "ab\u{600}:443", ":\u{301}//",
        "a:\u{301}b:443",
    ]

    @Test(arguments: texts, ["://", ":"])
    func characterRange_isWhatTheStandardLibraryFinds(text: String, needle: String) {
        #expect(CharacterSearch.range(of: needle, in: text) == text.firstRange(of: needle))
        let sub = text.dropFirst()
        #expect(CharacterSearch.range(of: needle, in: sub) == sub.firstRange(of: needle))
        // Not `text.contains(needle)`: this test module imports Foundation, whose `contains(_:)`
        // finds ':' inside a longer Character; the sources' calls (no Foundation) did not.
        #expect(CharacterSearch.contains(needle, in: text) == (text.firstRange(of: needle) != nil))
    }

    @Test(arguments: texts)
    func canonicalIdentity_isUnchangedForEveryText(text: String) {
        // The spelling de9a512 stored for these servers, computed with the standard library's search.
        var attributes = ItemAttributes(account: "u")
        attributes.server = text
        let canonical = attributes.canonicalIdentity(for: .internetPassword)
        if text == "a:\u{301}b:443" {
            #expect(canonical.server == "a:\u{301}b" && canonical.port == 443)
        }
        if text == "https://\u{301}host" {
            #expect(canonical.protocol == "" && canonical.server == "https://\u{301}host")
        }
        #expect(canonical == canonical.canonicalIdentity(for: .internetPassword))
    }

    @Test func theRange_cutsTheStringAtCharacterBoundaries() throws {
        let text = "é🔑://rest"
        let range = try #require(CharacterSearch.range(of: "://", in: text))
        #expect(text[..<range.lowerBound] == "é🔑")
        #expect(text[range.upperBound...] == "rest")
    }
}
