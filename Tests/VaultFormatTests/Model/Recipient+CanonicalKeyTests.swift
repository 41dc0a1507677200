// vault: RecipientKey accepts canonical X25519 keys only (R12-RCP-2, R12-TXT-1).
// Found by the security review of recipients (format 1.2).

import Testing

@testable import VaultFormat

@Suite("Recipient keys are canonical (R12-RCP-2, R12-TXT-1)")
struct RecipientKeyCanonicalTests {
    /// The top bit of a key is ignored by X25519, but the KEK binds R's bytes: a stanza made for
    /// R with the top bit set would never open with R's identity. Such a key is refused.
    @Test func topBitSet_isRefused_notAStanzaNoIdentityOpens() throws {
        let identity = RecipientIdentity.generate()
        var bytes = identity.recipient.bytes
        bytes[31] |= 0x80
        #expect(throws: VaultFormatError.self) { try RecipientKey(bytes: bytes) }
        do {
            _ = try RecipientKey(bytes: bytes)
        } catch {
            #expect(error.code == .invalidParameter)
        }
    }

    /// u >= p (2^255 - 19 ... 2^255 - 1) is the non-canonical encoding of a small u: refused.
    @Test func encodingAtOrAboveP_isRefused() throws {
        for low: UInt8 in [0xED, 0xF0, 0xFF] {
            let bytes = [low] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
            #expect(throws: VaultFormatError.self) { try RecipientKey(bytes: bytes) }
        }
        // Every generated key is canonical.
        for _ in 0..<64 { _ = try RecipientKey(bytes: RecipientIdentity.generate().recipient.bytes) }
    }
}
