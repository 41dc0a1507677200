// Format-3 sealed chunks (the root and the tree nodes): `nonce || Seal(key, nonce, plaintext, ad)`
// (Spec/format-v3.md §6.1, §6.2).

import Testing

@testable import VaultFormat

@Suite("Sealed chunks")
struct SealedChunkTests {
    private let key = [UInt8](repeating: 0x42, count: XChaCha20Poly1305.keyByteCount)
    private let associatedData = Array("VLT3node".utf8) + [UInt8](repeating: 7, count: 16) + [0, 0]

    /// The chunk starts with the nonce the random source gave, and the rest is the AEAD of the
    /// plaintext under that nonce: the bytes do not depend on how the seal builds its output.
    @Test(arguments: [0, 1, 3, 4_096])
    func sealIsTheNonceThenTheAEADUnderIt(plaintextCount: Int) throws {
        let nonce = (0..<XChaCha20Poly1305.nonceByteCount).map { UInt8($0 * 7 % 251) }
        let plaintext = (0..<plaintextCount).map { UInt8(truncatingIfNeeded: $0 * 31 + 5) }
        let chunk = SealedChunk.seal(
            plaintext,
            using: key,
            authenticating: associatedData,
            random: FixedRandom(nonce)
        )
        #expect(chunk.count == nonce.count + plaintextCount + XChaCha20Poly1305.tagByteCount)
        #expect(Array(chunk.prefix(nonce.count)) == nonce)
        var expected = [UInt8]()
        XChaCha20Poly1305.seal(
            plaintext,
            using: key,
            nonce: nonce,
            authenticating: associatedData,
            appendingTo: &expected
        )
        #expect(Array(chunk.dropFirst(nonce.count)) == expected)
        #expect(SealedChunk.open(chunk, using: key, authenticating: associatedData) == plaintext)
    }

    /// A chunk opened under other associated data (another scope) does not open.
    @Test func openRefusesOtherAssociatedData() {
        let chunk = SealedChunk.seal(
            [1, 2, 3],
            using: key,
            authenticating: associatedData,
            random: FixedRandom([UInt8](repeating: 9, count: XChaCha20Poly1305.nonceByteCount))
        )
        #expect(SealedChunk.open(chunk, using: key, authenticating: associatedData.dropLast() + [1]) == nil)
        #expect(SealedChunk.open(Array(chunk.prefix(10)), using: key, authenticating: associatedData) == nil)
    }
}
