// vault: Argon2id from libargon2.

internal import CArgon2

/// Argon2id version 0x13 (RFC 9106) from the reference implementation.
///
/// Spec: Spec/format-v1.md, "Primitives" (`Argon2id`).
package enum Argon2id {
    /// Derives a key of `length` bytes from `password`.
    ///
    /// The vault format uses no secret and no associated data; the optional
    /// `secret` and `associatedData` inputs (RFC 9106's `K` and `X`) exist so that
    /// the implementation can be checked against RFC 9106's published test vectors.
    ///
    /// The corresponding C function is `argon2_ctx`.
    ///
    /// - Parameters:
    ///   - password: The passphrase bytes.
    ///   - salt: At least 8 bytes.
    ///   - parameters: Memory in KiB, passes and lanes; the caller checks them against the
    ///     format's ceilings first (``KDFParameters/validateForReading()``).
    ///   - length: The tag length in bytes (4 or more).
    ///   - secret: RFC 9106's optional secret value `K`; empty for none.
    ///   - associatedData: RFC 9106's optional associated data `X`; empty for none.
    /// - Throws: ``VaultFormatError/Code/cryptoFailure`` when libargon2 fails (for example, out of memory).
    public static func deriveKey(
        password: some ReadableBytes,
        salt: some ReadableBytes,
        parameters: KDFParameters,
        length: Int = 32,
        secret: some ReadableBytes = [UInt8](),
        associatedData: some ReadableBytes = [UInt8]()
    ) throws(VaultFormatError) -> SecretBytes {
        var status: Int32 = 0
        let key = SecretBytes(count: length, protection: .guarded) { out in
            password.withUnsafeBytes { pw in
                salt.withUnsafeBytes { s in
                    secret.withUnsafeBytes { k in
                        associatedData.withUnsafeBytes { x in
                            // libargon2 takes non-const pointers but only reads the inputs
                            // (ARGON2_DEFAULT_FLAGS: it neither clears the password nor the secret).
                            func pointer(_ buffer: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8>? {
                                guard buffer.count > 0, let base = buffer.baseAddress else { return nil }
                                return UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
                            }
                            var context = argon2_context(
                                out: out.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                outlen: UInt32(length),
                                pwd: pointer(pw),
                                pwdlen: UInt32(pw.count),
                                salt: pointer(s),
                                saltlen: UInt32(s.count),
                                secret: pointer(k),
                                secretlen: UInt32(k.count),
                                ad: pointer(x),
                                adlen: UInt32(x.count),
                                t_cost: parameters.iterations,
                                m_cost: parameters.memoryKiB,
                                lanes: parameters.lanes,
                                threads: parameters.lanes,
                                version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: nil,
                                free_cbk: nil,
                                flags: 0
                            )  // ARGON2_DEFAULT_FLAGS (a macro Swift cannot import)
                            status = argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        KDFRunCounter.current?.record(parameters)
        guard status == ARGON2_OK.rawValue else {
            let message = String(cString: argon2_error_message(status))
            throw VaultFormatError(.cryptoFailure, "Argon2id failed: \(message)")
        }
        return key
    }
}
