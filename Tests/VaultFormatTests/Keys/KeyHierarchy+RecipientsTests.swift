// vault: KeyHierarchy.recipient(of:master:vaultID:), the R12-RCP-4 checks of a stanza's sealed info.
// Found by the security review of recipients (format 1.2).

import Testing

@testable import VaultFormat

@Suite("Recipient info (R12-RCP-4)")
struct RecipientInfoTests {
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
