// vault: X25519 key agreement and the base64 text of recipient keys (format 1.2).

internal import CSodium

/// X25519 (RFC 7748) as libsodium implements it.
///
/// Spec: Spec/format-v1.2.md, "Recipient stanzas".
enum X25519 {
    /// Bytes of a public key, a secret key and a shared secret.
    static let keyByteCount = 32

    /// The public key of `secret`.
    ///
    /// The corresponding C function is `crypto_scalarmult_base`.
    static func publicKey(of secret: SecretBytes) -> [UInt8] {
        Sodium.ensure()
        var out = [UInt8](repeating: 0, count: keyByteCount)
        secret.withUnsafeBytes { s in
            precondition(s.count == keyByteCount)
            _ = crypto_scalarmult_base(&out, s.bindMemory(to: UInt8.self).baseAddress!)
        }
        return out
    }

    /// `X25519(secret, publicKey)`, or `nil` when the result is all zeros (a low-order point,
    /// RFC 7748 section 6.1), which libsodium reports as a failure.
    ///
    /// The corresponding C function is `crypto_scalarmult`.
    static func sharedSecret(_ secret: SecretBytes, _ publicKey: some ReadableBytes) -> SecretBytes? {
        Sodium.ensure()
        var failed = false
        let shared = SecretBytes(count: keyByteCount, protection: .guarded) { out in
            secret.withUnsafeBytes { s in
                publicKey.withUnsafeBytes { p in
                    precondition(s.count == keyByteCount && p.count == keyByteCount)
                    failed =
                        crypto_scalarmult(
                            out.bindMemory(to: UInt8.self).baseAddress!,
                            s.bindMemory(to: UInt8.self).baseAddress!,
                            p.bindMemory(to: UInt8.self).baseAddress!
                        ) != 0
                }
            }
        }
        return failed ? nil : shared
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5).
enum Base64URL {
    /// The corresponding C function is `sodium_bin2base64`.
    static func encode(_ bytes: some ReadableBytes) -> [UInt8] {
        Sodium.ensure()
        return bytes.withUnsafeBytes { b in
            let capacity = sodium_base64_encoded_len(b.count, Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING))
            var out = [CChar](repeating: 0, count: capacity)
            _ = sodium_bin2base64(
                &out,
                capacity,
                b.bindMemory(to: UInt8.self).baseAddress,
                b.count,
                Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
            )
            let text = out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            // The buffer may hold an encoded secret key (an identity line).
            out.withUnsafeMutableBytes { Sodium.zero($0) }
            return text
        }
    }

    /// The bytes of `text`, or `nil` when it is not exactly unpadded URL-safe base64.
    ///
    /// The corresponding C function is `sodium_base642bin`.
    static func decode(_ text: some Collection<UInt8>, maximumByteCount: Int) -> [UInt8]? {
        Sodium.ensure()
        var characters = text.map { CChar(bitPattern: $0) }
        defer { characters.withUnsafeMutableBytes { Sodium.zero($0) } }
        var out = [UInt8](repeating: 0, count: maximumByteCount)
        var length = 0
        // sodium_base642bin stops at the first character outside the alphabet; all must be used.
        let complete = characters.withUnsafeBufferPointer { input -> Bool in
            var end: UnsafePointer<CChar>?
            let status = sodium_base642bin(
                &out,
                maximumByteCount,
                input.baseAddress,
                input.count,
                nil,
                &length,
                &end,
                Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
            )
            return status == 0 && end == input.baseAddress.map { $0 + input.count }
        }
        // `out` may hold a decoded secret key (an identity line): wiped whatever the outcome.
        defer { Sodium.wipe(&out) }
        guard complete else { return nil }
        return Array(out[0..<length])
    }
}
