// vault: the sealed chunks of format 3 (the root and the tree nodes): a nonce, then the AEAD.

/// `nonce || Seal(key, nonce, plaintext, associatedData)`, the shape of every sealed format-3
/// chunk (Spec/format-v3.md §6.1, §6.2; design draft).
enum SealedChunk {
    /// Seals `plaintext` under a fresh nonce.
    static func seal(
        _ plaintext: [UInt8],
        using key: some ReadableBytes,
        authenticating associatedData: [UInt8],
        random: some RandomSource
    ) -> [UInt8] {
        // The chunk is a fresh array the nonce is copied into, never a copy of the nonce array:
        // a release build (Swift 6.3.1) freed the nonce's storage when `var chunk = nonce` grew.
        let nonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        var chunk = [UInt8]()
        chunk.reserveCapacity(nonce.count + plaintext.count + XChaCha20Poly1305.tagByteCount)
        chunk.append(contentsOf: nonce)
        XChaCha20Poly1305.seal(
            plaintext,
            using: key,
            nonce: nonce,
            authenticating: associatedData,
            appendingTo: &chunk
        )
        return chunk
    }

    /// The plaintext, or `nil` when the chunk is too short or does not open.
    static func open(
        _ chunk: [UInt8],
        using key: some ReadableBytes,
        authenticating associatedData: [UInt8]
    ) -> [UInt8]? {
        let nonceCount = XChaCha20Poly1305.nonceByteCount
        guard chunk.count >= nonceCount else { return nil }
        return XChaCha20Poly1305.open(
            chunk[nonceCount...],
            using: key,
            nonce: chunk[..<nonceCount],
            authenticating: associatedData
        )
    }
}
