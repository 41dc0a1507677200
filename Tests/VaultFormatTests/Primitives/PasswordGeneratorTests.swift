// vault: password generator tests.

import Testing
import VaultFormat

@Suite("Password generator")
struct PasswordGeneratorTests {
    @Test func groupedShapeIsFourGroupsOfThreeWithEveryCharacterClass() throws {
        let alphabet = Set(PasswordGenerator.unambiguousAlphabet)
        for _ in 0..<1000 {
            let password = try PasswordGenerator().generate()
            let groups = password.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.count == 4 && groups.allSatisfy { $0.count == 3 }, "\(password.count) characters")
            let chars = groups.joined()
            let allowed = chars.allSatisfy { alphabet.contains($0) }
            let lower = chars.contains { $0.isLowercase }
            let upper = chars.contains { $0.isUppercase }
            let digit = chars.contains { $0.isNumber }
            #expect(allowed && lower && upper && digit, "every character class appears")
        }
    }

    @Test func hundredThousandDrawsAreUnique() throws {
        var seen = Set<String>()
        for _ in 0..<100_000 { seen.insert(try PasswordGenerator().generate()) }
        #expect(seen.count == 100_000)
    }

    @Test func customShapeUsesOnlyTheAlphabetAndLength() throws {
        let pin = try PasswordGenerator(.custom(length: 8, alphabet: "0123456789")).generate()
        let digits = pin.allSatisfy { $0.isNumber }
        #expect(pin.count == 8 && digits)
        let generator = PasswordGenerator(.custom(length: 20, alphabet: "ab"))
        #expect(generator.entropyBits == 20)
        var counts = ["a": 0, "b": 0]
        for _ in 0..<200 { for c in try generator.generate() { counts[String(c)]! += 1 } }
        #expect(counts["a"]! > 1500 && counts["b"]! > 1500, "both characters are drawn")
    }

    @Test func customShapeRejectsBadLengthsAndAlphabets() {
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try PasswordGenerator(.custom(length: 0, alphabet: "abc")).generate()
        }
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try PasswordGenerator(.custom(length: 10, alphabet: "aaaa")).generate()
        }
    }

    @Test func groupedEntropyIsAboutSeventyBits() {
        #expect(PasswordGenerator().entropyBits > 69 && PasswordGenerator().entropyBits < 71)
    }
}
