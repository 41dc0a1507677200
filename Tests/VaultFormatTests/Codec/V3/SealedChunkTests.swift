// Format-3 sealed chunks, the shape of the root and of every tree node: a fresh nonce, then the
// AEAD of the plaintext (Spec/format-v3.md §6.1, §6.2).

import Testing

@testable import VaultFormat

@Suite("Format 3: sealed chunks")
struct SealedChunkTests {
    /// The reliability suites found every format-3 write stopping on the nonce-size precondition of
    /// XChaCha20-Poly1305 in an optimized (`-c release`) build: `SealedChunk.seal` passed one array
    /// both as the nonce and as the output it appends to, and the optimizer handed the sealer the
    /// growing output as the nonce. A debug build made the copy and passed; run this test with
    /// `swift test -c release -Xswiftc -enable-testing` to see the difference.
    @Test("a sealed chunk is the nonce drawn, then the AEAD, and opens to its plaintext")
    func seal_isNonceThenCiphertext_andOpens() throws {
        let key = SecretBytes(bytes: (0..<32).map { UInt8($0) })
        let nonce = (0..<24).map { UInt8(0xA0 + $0) }
        for length in [0, 1, 94, 4_096] {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let chunk = SealedChunk.seal(
                plaintext,
                using: key,
                authenticating: Array("VLT3node".utf8),
                random: FixedRandom(nonce)
            )
            #expect(chunk.count == 24 + length + 16)
            #expect(Array(chunk.prefix(24)) == nonce)
            #expect(SealedChunk.open(chunk, using: key, authenticating: Array("VLT3node".utf8)) == plaintext)
            #expect(SealedChunk.open(chunk, using: key, authenticating: Array("VLT3root".utf8)) == nil)
        }
    }
}
