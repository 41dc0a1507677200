// vault: XChaCha20-Poly1305 against draft-irtf-cfrg-xchacha-03, appendix A.3.1.

import Testing
import VaultFormat

@Suite("XChaCha20-Poly1305")
struct XChaCha20Poly1305Tests {
    private let vector: AEADVector
    private let key: KeyEncryptionKey

    init() throws {
        vector = try PublishedVectors.load("xchacha20poly1305_draft03_a3_1")
        key = KeyEncryptionKey(secret: SecretBytes(bytes: vector.key.bytes))
    }

    private var sealed: [UInt8] { vector.ciphertext.bytes + vector.tag.bytes }

    @Test func vectorPlaintextIsTheDraftsSentence() {
        let text = String(decoding: vector.plaintext.bytes, as: UTF8.self)
        #expect(
            text
                == "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
        )
    }

    @Test func seal_givesThePublishedCiphertextAndTag() {
        let output = XChaCha20Poly1305.seal(
            vector.plaintext.bytes,
            using: key,
            nonce: vector.nonce.bytes,
            authenticating: vector.associatedData.bytes
        )
        #expect(output.count == vector.plaintext.bytes.count + XChaCha20Poly1305.tagByteCount)
        #expect(output == sealed)
    }

    @Test func open_recoversThePublishedPlaintext() {
        let plaintext = XChaCha20Poly1305.open(
            sealed,
            using: key,
            nonce: vector.nonce.bytes,
            authenticating: vector.associatedData.bytes
        )
        #expect(plaintext == vector.plaintext.bytes)
    }

    @Test(arguments: [0, 17, 113])  // first byte, a middle byte, the last ciphertext byte
    func open_withFlippedCiphertextBit_fails(index: Int) {
        var damaged = sealed
        damaged[index] ^= 0x01
        #expect(
            XChaCha20Poly1305.open(
                damaged,
                using: key,
                nonce: vector.nonce.bytes,
                authenticating: vector.associatedData.bytes
            ) == nil
        )
    }

    @Test(arguments: 0..<16)
    func open_withFlippedTagBit_fails(tagIndex: Int) {
        var damaged = sealed
        damaged[vector.ciphertext.bytes.count + tagIndex] ^= 0x80
        #expect(
            XChaCha20Poly1305.open(
                damaged,
                using: key,
                nonce: vector.nonce.bytes,
                authenticating: vector.associatedData.bytes
            ) == nil
        )
    }

    @Test(arguments: 0..<12)
    func open_withFlippedAssociatedDataBit_fails(index: Int) {
        var ad = vector.associatedData.bytes
        ad[index] ^= 0x04
        #expect(XChaCha20Poly1305.open(sealed, using: key, nonce: vector.nonce.bytes, authenticating: ad) == nil)
    }

    @Test func open_withOtherNonceOrKey_fails() {
        var nonce = vector.nonce.bytes
        nonce[23] ^= 1
        #expect(
            XChaCha20Poly1305.open(sealed, using: key, nonce: nonce, authenticating: vector.associatedData.bytes)
                == nil
        )
        var otherKeyBytes = vector.key.bytes
        otherKeyBytes[0] ^= 1
        let otherKey = KeyEncryptionKey(secret: SecretBytes(bytes: otherKeyBytes))
        #expect(
            XChaCha20Poly1305.open(
                sealed,
                using: otherKey,
                nonce: vector.nonce.bytes,
                authenticating: vector.associatedData.bytes
            ) == nil
        )
    }

    @Test func open_withTruncatedInput_fails() {
        for length in [0, 15, 16, sealed.count - 1] {
            #expect(
                XChaCha20Poly1305.open(
                    Array(sealed.prefix(length)),
                    using: key,
                    nonce: vector.nonce.bytes,
                    authenticating: vector.associatedData.bytes
                ) == nil
            )
        }
    }

    @Test func sealAndOpen_emptyPlaintext_roundTripsToTagOnly() {
        let output = XChaCha20Poly1305.seal(
            [UInt8](),
            using: key,
            nonce: vector.nonce.bytes,
            authenticating: [UInt8]()
        )
        #expect(output.count == XChaCha20Poly1305.tagByteCount)
        #expect(XChaCha20Poly1305.open(output, using: key, nonce: vector.nonce.bytes, authenticating: [UInt8]()) == [])
    }
}
