// vault: Argon2id from libargon2.

internal import CArgon2

/// Argon2id version 0x13 (RFC 9106) from the reference implementation.
///
/// Spec: Spec/format-v1.md, "Primitives" (`Argon2id`).
public enum Argon2id {
    /// Derives a 32-byte key from `password`.
    ///
    /// The corresponding C function is `argon2id_hash_raw`.
    ///
    /// - Parameters:
    ///   - password: The passphrase bytes.
    ///   - salt: At least 8 bytes.
    ///   - parameters: Memory in KiB, passes and lanes; the caller checks them against the
    ///     format's ceilings first (``KDFParameters/validateForReading()``).
    /// - Throws: ``VaultFormatError/Code/cryptoFailure`` when libargon2 fails (for example, out of memory).
    public static func deriveKey(
        password: some ContiguousBytes,
        salt: some ContiguousBytes,
        parameters: KDFParameters,
        length: Int = 32
    ) throws(VaultFormatError) -> SecretBytes {
        var status: Int32 = 0
        let key = SecretBytes(count: length) { out in
            password.withUnsafeBytes { pw in
                salt.withUnsafeBytes { s in
                    status = argon2id_hash_raw(
                        parameters.iterations, parameters.memoryKiB, parameters.lanes,
                        pw.baseAddress, pw.count, s.baseAddress, s.count, out.baseAddress, length)
                }
            }
        }
        guard status == ARGON2_OK.rawValue else {
            let message = String(cString: argon2_error_message(status))
            throw VaultFormatError(.cryptoFailure, "Argon2id failed: \(message)")
        }
        return key
    }
}
