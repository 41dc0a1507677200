// VaultFormat tests: the byte-wise ASCII search that keeps lookups out of _StringProcessing.

import Testing

@testable import VaultFormat

@Suite("ASCII search in strings")
struct ASCIISearchTests {
    /// Texts with the needle at the start, the end, twice, overlapping, after multi-byte
    /// characters and combining marks, and not at all.
    static let texts = [
        "https://github.com", "://", "a://b://c", "::://", "é://x", "🔑https://k", "e\u{301}://x",
        "no scheme", "", ":/", "github.com:443", "[::1]:8443", "ab:/:/", "x:😀//",
    ]

    @Test(arguments: texts, ["://", ":"])
    func firstRange_isWhatTheStandardLibraryFinds(text: String, needle: String) {
        let found = needle == "://" ? text.firstRange(ofASCII: "://") : text.firstRange(ofASCII: ":")
        #expect(found == text.firstRange(of: needle))
        let sub = text.dropFirst()
        let foundInSub = needle == "://" ? sub.firstRange(ofASCII: "://") : sub.firstRange(ofASCII: ":")
        #expect(foundInSub == sub.firstRange(of: needle))
        #expect(text.contains(ascii: "://") == text.contains("://"))
    }

    @Test func theRange_cutsTheStringAtCharacterBoundaries() throws {
        let text = "é🔑://rest"
        let range = try #require(text.firstRange(ofASCII: "://"))
        #expect(text[..<range.lowerBound] == "é🔑")
        #expect(text[range.upperBound...] == "rest")
    }
}
