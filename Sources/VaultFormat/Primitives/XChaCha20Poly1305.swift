// vault: XChaCha20-Poly1305 IETF AEAD.

internal import CSodium

/// XChaCha20-Poly1305 (IETF construction), as specified by draft-irtf-cfrg-xchacha.
///
/// Spec: Spec/format-v1.md, "Primitives" (`Seal`, `Open`).
package enum XChaCha20Poly1305 {
    /// Key size in bytes.
    public static let keyByteCount = 32
    /// Nonce size in bytes.
    public static let nonceByteCount = 24
    /// Authentication tag size in bytes.
    public static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`, binding `associatedData`.
    ///
    /// The corresponding C function is `crypto_aead_xchacha20poly1305_ietf_encrypt`.
    ///
    /// - Returns: `ciphertext || tag`, `plaintext.count + 16` bytes.
    public static func seal(
        _ plaintext: some ReadableBytes,
        using key: some VaultKey,
        nonce: some ReadableBytes,
        authenticating associatedData: some ReadableBytes
    ) -> [UInt8] {
        var out = [UInt8]()
        seal(plaintext, using: key.secret, nonce: nonce, authenticating: associatedData, appendingTo: &out)
        return out
    }

    /// Encrypts into the end of `output`, avoiding an intermediate array.
    static func seal(
        _ plaintext: some ReadableBytes,
        using key: some ReadableBytes,
        nonce: some ReadableBytes,
        authenticating associatedData: some ReadableBytes,
        appendingTo output: inout [UInt8]
    ) {
        Sodium.ensure()
        let start = output.count
        let length = plaintext.withUnsafeBytes { $0.count }
        output.append(contentsOf: repeatElement(0, count: length + tagByteCount))
        output.withUnsafeMutableBytes { out in
            plaintext.withUnsafeBytes { m in
                withParameters(nonce: nonce, associatedData: associatedData, key: key) { n, ad, k in
                    var written: UInt64 = 0
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        out.baseAddress! + start,
                        &written,
                        m.bindMemory(to: UInt8.self).baseAddress,
                        UInt64(m.count),
                        ad.bindMemory(to: UInt8.self).baseAddress,
                        UInt64(ad.count),
                        nil,
                        n.bindMemory(to: UInt8.self).baseAddress!,
                        k.bindMemory(to: UInt8.self).baseAddress!
                    )
                }
            }
        }
    }

    /// Verifies and decrypts `ciphertext` (`ciphertext || tag`).
    ///
    /// The corresponding C function is `crypto_aead_xchacha20poly1305_ietf_decrypt`.
    ///
    /// - Returns: The plaintext, or `nil` when the tag does not verify.
    public static func open(
        _ ciphertext: some ReadableBytes,
        using key: some VaultKey,
        nonce: some ReadableBytes,
        authenticating associatedData: some ReadableBytes
    ) -> [UInt8]? {
        open(ciphertext, using: key.secret, nonce: nonce, authenticating: associatedData)
    }

    /// Verifies and decrypts a wrapped key (`ciphertext || tag`) into ``SecretBytes``; the
    /// plaintext array is wiped, so no other copy of the key is left behind.
    ///
    /// - Returns: The plaintext, or `nil` when the tag does not verify.
    static func openKey(
        _ ciphertext: some ReadableBytes,
        using key: some VaultKey,
        nonce: some ReadableBytes,
        authenticating associatedData: some ReadableBytes,
        protection: SecretBytes.Protection = .zeroed
    ) -> SecretBytes? {
        guard var plain = open(ciphertext, using: key, nonce: nonce, authenticating: associatedData) else {
            return nil
        }
        defer { Sodium.wipe(&plain) }
        return SecretBytes(bytes: plain, protection: protection)
    }

    static func open(
        _ ciphertext: some ReadableBytes,
        using key: some ReadableBytes,
        nonce: some ReadableBytes,
        authenticating associatedData: some ReadableBytes
    ) -> [UInt8]? {
        Sodium.ensure()
        let length = ciphertext.withUnsafeBytes { $0.count }
        guard length >= tagByteCount else { return nil }
        var out = [UInt8](repeating: 0, count: length - tagByteCount)
        let ok = out.withUnsafeMutableBytes { o in
            ciphertext.withUnsafeBytes { c in
                withParameters(nonce: nonce, associatedData: associatedData, key: key) { n, ad, k in
                    var written: UInt64 = 0
                    return crypto_aead_xchacha20poly1305_ietf_decrypt(
                        o.bindMemory(to: UInt8.self).baseAddress,
                        &written,
                        nil,
                        c.bindMemory(to: UInt8.self).baseAddress!,
                        UInt64(c.count),
                        ad.bindMemory(to: UInt8.self).baseAddress,
                        UInt64(ad.count),
                        n.bindMemory(to: UInt8.self).baseAddress!,
                        k.bindMemory(to: UInt8.self).baseAddress!
                    ) == 0
                }
            }
        }
        return ok ? out : nil
    }

    /// Runs `body` with the bytes of the nonce, the associated data and the key, after the one
    /// size check that sealing and opening share (a wrong nonce or key size is a programming
    /// error, never a ciphertext's fault).
    private static func withParameters<R>(
        nonce: some ReadableBytes,
        associatedData: some ReadableBytes,
        key: some ReadableBytes,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R
    ) -> R {
        nonce.withUnsafeBytes { n in
            associatedData.withUnsafeBytes { ad in
                key.withUnsafeBytes { k in
                    precondition(n.count == nonceByteCount && k.count == keyByteCount)
                    return body(n, ad, k)
                }
            }
        }
    }
}
