// vault: Unicode normalization of passwords before the KDF (format 1.1).

/// Normalizes a passphrase to Unicode Normalization Form C before it reaches Argon2id.
///
/// The same password typed on two systems can arrive as different code points
/// (`é` as U+00E9, or as `e` followed by U+0301). Format 1.1 derives every password
/// KEK from the NFC form, so both open the vault.
///
/// Spec: Spec/format-v1.1.md, "Passwords are NFC" (R11-PW-1).
package enum PasswordNormalization {
    /// The bytes Argon2id receives for `password` in a file of format 1.1.
    ///
    /// ASCII passwords (already NFC) are returned as they are, without any copy. Bytes that
    /// are not valid UTF-8 are also used unchanged (R11-PW-1). Other passwords go through the
    /// standard library's NFC normalizer; that leaves a transient `String` copy of the
    /// password in memory that cannot be wiped.
    public static func nfc(_ password: SecretBytes) -> SecretBytes {
        let isASCII = password.withUnsafeBytes { raw in raw.allSatisfy { $0 < 0x80 } }
        if isASCII { return password }
        var bytes = password.copyBytes()
        defer { Sodium.wipe(&bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return password }
        var normalized = Array(text._nfcCodeUnits)
        defer { Sodium.wipe(&normalized) }
        return SecretBytes(bytes: normalized, protection: .guarded)
    }

    /// Whether `password` is already in NFC form (so normalizing it changes nothing).
    public static func isNormalized(_ password: SecretBytes) -> Bool { nfc(password) == password }
}
