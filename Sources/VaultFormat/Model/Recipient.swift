// vault: recipients (format 1.2): X25519 public keys that open a vault, and their identities.

/// The public key of a recipient: who may open a format 1.2 vault with an identity file.
///
/// Its text form is printable and safe to share:
/// `VAULT-RECIPIENT-1:` followed by the unpadded URL-safe base64 of the 32-byte X25519 public key
/// and a 4-byte checksum, `BLAKE2b(4, "", "VLT12rck" || key)`.
///
/// ```swift
/// let alice = try RecipientKey(text: "VAULT-RECIPIENT-1:…")
/// ```
///
/// Spec: Spec/format-v1.2.md, "Text forms" (R12-TXT-1).
public struct RecipientKey: Hashable, Sendable, CustomStringConvertible {
    /// The prefix of the text form.
    public static let textPrefix = "VAULT-RECIPIENT-1:"
    /// The 32 bytes of the X25519 public key.
    public let bytes: [UInt8]

    /// Wraps a 32-byte X25519 public key.
    ///
    /// - Throws: `invalidParameter` when `bytes` is not 32 bytes or is a low-order point, with which
    ///   no key agreement is possible (R12-RCP-2).
    public init(bytes: [UInt8]) throws(VaultFormatError) {
        guard bytes.count == X25519.keyByteCount else {
            throw VaultFormatError(.invalidParameter, "a recipient key is \(X25519.keyByteCount) bytes")
        }
        // X25519 ignores the top bit and reduces u modulo p = 2^255 - 19, so other encodings of
        // a key name the same point but give another KEK (which binds the bytes of R): a stanza
        // made for one would never open with the identity. Only the canonical encoding is a key.
        guard Self.isCanonical(bytes) else {
            throw VaultFormatError(.invalidParameter, "this recipient key is not a canonical X25519 public key")
        }
        guard X25519.sharedSecret(SecretBytes(bytes: [UInt8](repeating: 1, count: 32)), bytes) != nil else {
            throw VaultFormatError(.invalidParameter, "this recipient key is a low-order point and cannot be used")
        }
        self.bytes = bytes
    }

    /// Whether `bytes` (little-endian) is below p = 2^255 - 19, so top bit clear and not in p...2^255-1.
    static func isCanonical(_ bytes: [UInt8]) -> Bool {
        guard bytes[31] & 0x80 == 0 else { return false }
        // The encodings from p to 2^255 - 1: 0x7f, 30 bytes 0xff, then a low byte of at least 0xed.
        return !(bytes[31] == 0x7F && bytes[1...30].allSatisfy { $0 == 0xFF } && bytes[0] >= 0xED)
    }

    /// Parses the text form (surrounding white space is ignored).
    ///
    /// - Throws: `invalidParameter` for a wrong prefix, bad base64, a wrong checksum or an unusable key.
    public init(text: String) throws(VaultFormatError) {
        let trimmed = text.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let body = trimmed.reversed().drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }.reversed()
        guard
            let payload = RecipientText.decode(Array(body), prefix: Self.textPrefix, checksumContext: "VLT12rck")
        else {
            throw VaultFormatError(
                .invalidParameter,
                "not a recipient key: expected \(Self.textPrefix) followed by 48 base64url characters"
            )
        }
        try self.init(bytes: payload)
    }

    /// The text form, `VAULT-RECIPIENT-1:…`.
    public var description: String {
        String(
            decoding: RecipientText.encode(bytes, prefix: Self.textPrefix, checksumContext: "VLT12rck"),
            as: UTF8.self
        )
    }
}

/// The private key of a recipient: an X25519 secret key, held in guarded memory.
///
/// It is stored in an identity file (``fileContents`` and ``init(fileContents:)``), whose only
/// non-comment line is `VAULT-IDENTITY-1:` and the base64 of the key and its checksum. Offer it as
/// ``Credentials/identity`` to open a vault of which ``recipient`` is a recipient.
///
/// Spec: Spec/format-v1.2.md, "Identity files" (R12-TXT-2).
public struct RecipientIdentity: Sendable {
    /// The prefix of the identity line.
    public static let textPrefix = "VAULT-IDENTITY-1:"
    /// The X25519 secret key.
    package let secret: SecretBytes
    /// The public key that vaults name to let this identity in.
    public let recipient: RecipientKey

    /// A new random identity.
    ///
    /// The corresponding C function is `randombytes_buf` (as in `crypto_box_keypair`).
    public static func generate(random: some RandomSource = SystemRandom()) -> RecipientIdentity {
        let secret = SecretBytes(count: X25519.keyByteCount, protection: .guarded) { random.fill($0) }
        // A random scalar gives a low-order public key with probability 0.
        return RecipientIdentity(secret: secret, recipient: try! RecipientKey(bytes: X25519.publicKey(of: secret)))
    }

    private init(secret: SecretBytes, recipient: RecipientKey) {
        self.secret = secret
        self.recipient = recipient
    }

    /// Parses an identity file: blank lines and lines starting with `#` are ignored, and exactly
    /// one `VAULT-IDENTITY-1:` line must remain.
    ///
    /// - Throws: `invalidParameter` for anything else; the message never quotes the file.
    public init(fileContents: some ReadableBytes) throws(VaultFormatError) {
        try self.init(fileContents: fileContents, passphrase: nil)
    }

    /// Whether the identity line of `fileContents` is sealed under a passphrase (R12-TXT-3).
    public static func isSealed(fileContents: some ReadableBytes) -> Bool {
        fileContents.withUnsafeBytes { raw in
            raw.split(separator: 0x0A).contains { line in
                SealedIdentity.isSealed(line.drop { $0 == 0x20 || $0 == 0x09 })
            }
        }
    }

    /// Parses an identity file whose identity line may be sealed under `passphrase` (R12-TXT-3):
    /// as ``init(fileContents:)`` otherwise.
    ///
    /// - Throws: `keyUnavailable` for a sealed line without a passphrase; `wrongCredential` for a
    ///   wrong one; `invalidParameter` for a malformed file; `cryptoFailure` from Argon2.
    public init(fileContents: some ReadableBytes, passphrase: SecretBytes?) throws(VaultFormatError) {
        var sealedLine: [UInt8]?
        defer { if var line = sealedLine { Sodium.wipe(&line) } }
        var lines = 0
        let found: SecretBytes? = fileContents.withUnsafeBytes { raw -> SecretBytes? in
            let all = raw.bindMemory(to: UInt8.self)
            var identity: SecretBytes?
            for line in all.split(separator: 0x0A, omittingEmptySubsequences: true) {
                var body = line[...]
                while let last = body.last, last == 0x0D || last == 0x20 || last == 0x09 { body = body.dropLast() }
                while let first = body.first, first == 0x20 || first == 0x09 { body = body.dropFirst() }
                if body.isEmpty || body.first == UInt8(ascii: "#") { continue }
                lines += 1
                var line = Array(body)
                defer { Sodium.wipe(&line) }
                if SealedIdentity.isSealed(line) {
                    sealedLine = line
                    continue
                }
                guard
                    var key = RecipientText.decode(
                        line,
                        prefix: Self.textPrefix,
                        checksumContext: "VLT12ick"
                    )
                else { return nil }
                identity = SecretBytes(bytes: key, protection: .guarded)
                Sodium.wipe(&key)
            }
            return lines == 1 ? identity : nil
        }
        var opened = found
        if let line = sealedLine, opened == nil, lines == 1 {
            guard let passphrase else {
                throw VaultFormatError(.keyUnavailable, "the identity file is protected by a passphrase")
            }
            opened = try SealedIdentity.open(line, passphrase: passphrase)
        }
        guard let found = opened, found.count == X25519.keyByteCount else {
            throw VaultFormatError(
                .invalidParameter,
                "not an identity file: expected one line \(Self.textPrefix) followed by 48 base64url characters"
            )
        }
        guard let recipient = try? RecipientKey(bytes: X25519.publicKey(of: found)) else {
            throw VaultFormatError(.invalidParameter, "the identity's key is unusable")
        }
        self.init(secret: found, recipient: recipient)
    }

    /// The contents of an identity file whose identity line is sealed under `passphrase` with
    /// Argon2id (R12-TXT-3): two comment lines and the sealed line, in guarded memory.
    ///
    /// - Throws: `invalidParameter` for KDF parameters below the minimum or past the ceilings.
    public func sealedFileContents(
        passphrase: SecretBytes,
        kdf: KDFParameters = .interactive,
        random: some RandomSource = SystemRandom()
    ) throws(VaultFormatError) -> SecretBytes {
        var line = try SealedIdentity.seal(secret, passphrase: passphrase, kdf: kdf, random: random)
        defer { Sodium.wipe(&line) }
        return file(
            heading: "# vault identity, sealed under a passphrase: keep this file secret all the same",
            line: line
        )
    }

    /// The contents of an identity file: two comment lines (one with the recipient key) and the
    /// identity line, in guarded memory.
    public var fileContents: SecretBytes {
        var line = RecipientText.encode(secret, prefix: Self.textPrefix, checksumContext: "VLT12ick")
        defer { Sodium.wipe(&line) }
        return file(
            heading: "# vault identity: keep this file secret; anyone holding it opens the vaults that name it",
            line: line
        )
    }

    /// An identity file: `heading`, the recipient-key comment and `line`, in guarded memory.
    private func file(heading: String, line: [UInt8]) -> SecretBytes {
        var text = Array((heading + "\n# recipient: \(recipient)\n").utf8)
        // Room for all of it up front, so that no partial copy of the secret is left when it grows.
        text.reserveCapacity(text.count + line.count + 1)
        text += line
        text.append(0x0A)
        defer { Sodium.wipe(&text) }
        return SecretBytes(bytes: text, protection: .guarded)
    }
}

/// The text form shared by recipient keys and identities: `prefix || base64url(key || checksum)`.
enum RecipientText {
    static func checksum(_ key: some ReadableBytes, context: StaticString) -> [UInt8] {
        let label = context.withUTF8Buffer { Array($0) }
        return BLAKE2b.hash([label, key], length: 4)
    }

    static func encode(_ key: some ReadableBytes, prefix: String, checksumContext: StaticString) -> [UInt8] {
        var payload = key.withUnsafeBytes { Array($0) } + checksum(key, context: checksumContext)
        var encoded = Base64URL.encode(payload)
        defer {
            Sodium.wipe(&payload)
            Sodium.wipe(&encoded)
        }
        var out = Array(prefix.utf8)
        out.reserveCapacity(out.count + encoded.count + 1)
        out += encoded
        return out
    }

    static func decode(_ text: [UInt8], prefix: String, checksumContext: StaticString) -> [UInt8]? {
        let head = Array(prefix.utf8)
        guard text.count == head.count + 48, Array(text[0..<head.count]) == head else { return nil }
        guard var payload = Base64URL.decode(text[head.count...], maximumByteCount: 36), payload.count == 36 else {
            return nil
        }
        let key = Array(payload[0..<32])
        let good = Sodium.constantTimeEqual(checksum(key, context: checksumContext), payload[32..<36])
        Sodium.wipe(&payload)
        return good ? key : nil
    }
}
