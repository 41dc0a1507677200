// vault: a recipient stanza whose sealed info names another key than the one it opens for.

import Testing

@testable import VaultFormat

@Suite("A stanza whose info names another key (R12-RCP-7)")
struct MismatchedStanzaTests {
    /// A holder of MK (alice) adds a stanza wrapped to her own key whose sealed info names bob:
    /// listings show bob twice and would hide her behind his name. Her identity, which can tell,
    /// calls it damage; bob's own stanza still opens for bob.
    @Test func stanzaNamingAnotherKey_isStructureForItsOpener() throws {
        let random = SeededRandom(seed: "mismatch")
        let start = try KeyFileVaultStart(random: random, keyFile: AccessGroupForgeryTests.keyFile)
        let alice = RecipientIdentity.generate()
        let bob = RecipientIdentity.generate()
        var writer = start.writer
        try writer.upgradeToVersion12()
        try writer.addRecipient(Recipient(key: bob.recipient, name: "bob"))
        var hidden = try KeyHierarchy.makeRecipientStanza(
            for: Recipient(key: alice.recipient, name: "alice"),
            master: start.master,
            vaultID: start.vaultID
        )
        var plain = bob.recipient.bytes + [3] + Array("bob".utf8)
        plain += [UInt8](repeating: 0, count: RecipientStanza.infoPlaintextByteCount - plain.count)
        hidden.info = XChaCha20Poly1305.seal(
            plain,
            using: KeyHierarchy.recipientInfoKey(start.master),
            nonce: hidden.infoNonce,
            authenticating: KeyHierarchy.recipientInfoAssociatedData(hidden, vaultID: start.vaultID)
        )
        writer.header.recipientStanzas.append(hidden)
        let file = try writer.encode(now: 0)
        let owner = try VaultSnapshot.open(file, with: AccessGroupForgeryTests.keyFile)
        #expect(try owner.recipients().map(\.name) == ["bob", "bob"])
        let error = try #require(throws: VaultFormatError.self) { try VaultSnapshot.open(file, with: .identity(alice)) }
        #expect(error.code == .structure && error.reason.contains("names another key"))
        #expect(try VaultSnapshot.open(file, with: .identity(bob)).keys.hasMasterKey)
    }
}
