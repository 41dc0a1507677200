// vault: identity files protected by a passphrase (Spec/format-v1.2.md R12-TXT-3).

/// The passphrase-sealed form of an identity line:
/// `VAULT-IDENTITY-SEALED-1:` followed by the unpadded URL-safe base64 of 101 bytes,
///
/// ```
/// 0   1   algorithm, 1 = Argon2id v0x13
/// 1   4   LE32 memory (KiB)     5  4  LE32 passes     9  4  LE32 lanes
/// 13  16  salt                  29 24 nonce
/// 53  48  Seal(KEK, nonce, r, "VLTidsl1" || bytes[0:53])
/// KEK = Argon2id(NFC(passphrase), salt, memory, passes, lanes, 32)
/// ```
///
/// A wrong passphrase fails the AEAD (`wrongCredential`); parameters past the reading ceilings
/// of R-KS-2 are refused before any Argon2 runs.
enum SealedIdentity {
    static let prefix = "VAULT-IDENTITY-SEALED-1:"
    static let payloadByteCount = 101
    static let headerByteCount = 53

    /// Seals the 32-byte secret `r` under `passphrase`.
    static func seal(
        _ r: SecretBytes,
        passphrase: SecretBytes,
        kdf: KDFParameters,
        random: some RandomSource
    ) throws(VaultFormatError) -> [UInt8] {
        try kdf.validateForWriting()
        var header = ByteWriter(capacity: headerByteCount)
        header.u8(Keyslot.argon2idAlgorithm)
        header.u32(kdf.memoryKiB)
        header.u32(kdf.iterations)
        header.u32(kdf.lanes)
        header.append(random.bytes(16))
        header.append(random.bytes(XChaCha20Poly1305.nonceByteCount))
        let bytes = header.bytes
        let kek = try key(passphrase, salt: bytes[13..<29], kdf: kdf)
        let sealed = XChaCha20Poly1305.seal(
            r,
            using: kek,
            nonce: bytes[29..<53],
            authenticating: Array("VLTidsl1".utf8) + bytes
        )
        var payload = bytes + sealed
        defer { Sodium.wipe(&payload) }
        return Array(prefix.utf8) + Base64URL.encode(payload)
    }

    /// The secret `r` of a sealed identity line, or `nil` when `line` is not one.
    ///
    /// - Throws: `invalidParameter` for a malformed line or parameters past the ceilings;
    ///   `wrongCredential` when the passphrase does not open it; `cryptoFailure` from Argon2.
    static func open(_ line: [UInt8], passphrase: SecretBytes) throws(VaultFormatError) -> SecretBytes? {
        let head = Array(prefix.utf8)
        guard line.count > head.count, Array(line[0..<head.count]) == head else { return nil }
        guard var payload = Base64URL.decode(line[head.count...], maximumByteCount: payloadByteCount),
            payload.count == payloadByteCount, payload[0] == Keyslot.argon2idAlgorithm
        else {
            throw VaultFormatError(.invalidParameter, "not a sealed identity line")
        }
        defer { Sodium.wipe(&payload) }
        var reader = ByteReader(payload[1..<13])
        let kdf = KDFParameters(
            memoryKiB: try reader.u32("identity memory"),
            iterations: try reader.u32("identity passes"),
            lanes: try reader.u32("identity lanes")
        )
        try kdf.validateForReading()
        let kek = try key(passphrase, salt: payload[13..<29], kdf: kdf)
        guard
            let r = XChaCha20Poly1305.open(
                payload[headerByteCount...],
                using: kek,
                nonce: payload[29..<53],
                authenticating: Array("VLTidsl1".utf8) + payload[0..<headerByteCount]
            ), r.count == X25519.keyByteCount
        else {
            throw VaultFormatError(.wrongCredential, "wrong passphrase for the identity file")
        }
        var secret = r
        defer { Sodium.wipe(&secret) }
        return SecretBytes(bytes: secret, protection: .guarded)
    }

    /// Whether `line` starts like a sealed identity line.
    static func isSealed(_ line: some Collection<UInt8>) -> Bool {
        line.starts(with: Array(prefix.utf8))
    }

    private static func key(_ passphrase: SecretBytes, salt: ArraySlice<UInt8>, kdf: KDFParameters)
        throws(VaultFormatError) -> KeyEncryptionKey
    {
        let secret = try Argon2id.deriveKey(
            password: PasswordNormalization.nfc(passphrase),
            salt: Array(salt),
            parameters: kdf
        )
        return KeyEncryptionKey(secret: secret)
    }
}
