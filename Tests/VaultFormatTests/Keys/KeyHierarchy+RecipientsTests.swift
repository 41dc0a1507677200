// vault: R12-RCP-4 checks of a stanza's sealed info, found in the security review.

import Testing

@testable import VaultFormat

@Suite("Recipient info (R12-RCP-4)")
struct RecipientInfoReviewTests {
    static let master = MasterKey(secret: SecretBytes(bytes: (0..<32).map { UInt8($0) }))
    static let vaultID = (0..<16).map { 0x40 + UInt8($0) }

    /// A stanza whose info, sealed under the right key (so written by a holder of `MK`), holds `plain`.
    func stanza(info plain: [UInt8]) throws -> RecipientStanza {
        var stanza = try KeyHierarchy.makeRecipientStanza(
            for: Recipient(key: RecipientIdentity.generate().recipient, name: "x"),
            master: Self.master,
            vaultID: Self.vaultID
        )
        stanza.info = XChaCha20Poly1305.seal(
            plain,
            using: KeyHierarchy.recipientInfoKey(Self.master),
            nonce: stanza.infoNonce,
            authenticating: KeyHierarchy.recipientInfoAssociatedData(stanza, vaultID: Self.vaultID)
        )
        return stanza
    }

    /// An info that opens but names a low-order key is `structure` (damage), as the spec says,
    /// not `invalidParameter` (a caller's mistake).
    @Test func lowOrderKeyInInfo_isStructure() throws {
        var plain = [UInt8](repeating: 0, count: 97)  // name ""
        plain[0] = 1  // key: u = 1, a point of order 4
        let stanza = try stanza(info: plain)
        do {
            _ = try KeyHierarchy.recipient(of: stanza, master: Self.master, vaultID: Self.vaultID)
            Issue.record("a low-order key in a stanza was accepted")
        } catch {
            #expect(error.code == .structure, "\(error)")
        }
    }

    /// A name with a control character (which no conforming writer writes) is `structure` too:
    /// it would reach `recipients ls` and make every later rekey fail with `invalidParameter`.
    @Test func controlCharacterInName_isStructure() throws {
        var plain = RecipientIdentity.generate().recipient.bytes + [3] + Array("a\u{1B}b".utf8)
        plain += [UInt8](repeating: 0, count: 97 - plain.count)
        let stanza = try stanza(info: plain)
        do {
            _ = try KeyHierarchy.recipient(of: stanza, master: Self.master, vaultID: Self.vaultID)
            Issue.record("a control character in a stored name was accepted")
        } catch {
            #expect(error.code == .structure, "\(error)")
        }
    }
}

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
