// VaultDelivery tests: the masker's forms of a secret, and its streaming across pieces.

import Testing
import VaultDelivery

@Suite("OutputMasker")
struct OutputMaskerTests {
    private func masked(_ secrets: [String], _ pieces: [String]) -> String {
        var masker = OutputMasker(secrets: secrets.map { Array($0.utf8) })
        var out = [UInt8]()
        for piece in pieces { out += masker.feed(Array(piece.utf8)) }
        out += masker.finish()
        return String(decoding: out, as: UTF8.self)
    }

    @Test func feed_secretSplitAcrossPieces_isMasked() {
        #expect(masked(["hunter2"], ["pass: hun", "ter2\n"]) == "pass: <concealed by vault>\n")
    }

    @Test func feed_encodedForms_areMasked() {
        // base64 of "hunter2" is aHVudGVyMg== ; percent and JSON forms of a secret with a space and a quote.
        #expect(masked(["hunter2"], ["token aHVudGVyMg== end"]) == "token <concealed by vault> end")
        #expect(
            masked(["a b\"c"], ["q=a%20b%22c j=\"a b\\\"c\""]) == "q=<concealed by vault> j=\"<concealed by vault>\""
        )
    }

    @Test func feed_keepsBackOnlyAPrefixOfAForm() {
        var masker = OutputMasker(secrets: [Array("secret".utf8)])
        #expect(masker.feed(Array("prompt> sec".utf8)) == Array("prompt> ".utf8))
        #expect(masker.feed(Array("ond".utf8)) == Array("second".utf8))
    }

    @Test func emptySecrets_maskNothing() {
        let masker = OutputMasker(secrets: [[], []])
        #expect(masker.isEmpty)
        #expect(masked([""], ["as is"]) == "as is")
    }

    @Test func forms_secretWithTrailingNewline_includesItWithout() {
        let forms = OutputMasker.forms(of: Array("pw\n".utf8))
        #expect(forms.contains(Array("pw".utf8)))
        #expect(forms.contains(Array("pw\n".utf8)))
    }
}
