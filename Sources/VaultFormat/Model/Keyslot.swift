// vault: keyslots, which wrap the master or base key under a credential.

/// One keyslot of the header: a credential kind, its public parameters and the
/// wrapped key.
///
/// Spec: Spec/format-v1.md, "Keyslots".
public struct Keyslot: Hashable, Sendable {
    /// Which credential opens the slot.
    public enum Kind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        /// A passphrase through Argon2id.
        case password = 1
        /// A key file through BLAKE2b.
        case keyFile = 2
        /// A passphrase and a key file together.
        case passwordAndKeyFile = 3
        /// The device secret of one machine.
        case device = 4

        public var description: String {
            switch self {
            case .password: "password"
            case .keyFile: "keyFile"
            case .passwordAndKeyFile: "passwordAndKeyFile"
            case .device: "device"
            }
        }

        /// Whether Argon2id runs for this kind.
        public var usesPassword: Bool { self == .password || self == .passwordAndKeyFile }
        /// Whether a key file is needed.
        public var usesKeyFile: Bool { self == .keyFile || self == .passwordAndKeyFile }
    }

    /// Which key the slot wraps.
    public enum Scope: UInt8, Sendable, CustomStringConvertible {
        /// The master key: every class.
        case masterKey = 0
        /// The base key only: header, index and the `always` classes.
        case baseKey = 1

        public var description: String { self == .masterKey ? "master" : "base" }
    }

    /// The credential kind.
    public var kind: Kind
    /// The wrapped key.
    public var scope: Scope
    /// Argon2id parameters for password kinds.
    public var kdf: KDFParameters?
    /// The salt (32 bytes for key-file and device kinds; 16 to 64 for password kinds).
    public var salt: [UInt8]
    /// The wrapping nonce.
    public var nonce: [UInt8]
    /// `Seal(KEK, nonce, key, AD)`: 48 bytes.
    public var wrapped: [UInt8]

    /// The KDF algorithm number for Argon2id v0x13.
    public static let argon2idAlgorithm: UInt8 = 1
    /// The most keyslots a header may hold.
    public static let maximumCount = 32

    /// The bytes covered by the wrapping's associated data: everything before the nonce.
    var parameterBytes: [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.u8(kind.rawValue)
        w.u8(scope.rawValue)
        switch kind {
        case .password, .passwordAndKeyFile:
            let kdf = kdf!
            w.u8(Self.argon2idAlgorithm)
            w.u32(kdf.memoryKiB)
            w.u32(kdf.iterations)
            w.u32(kdf.lanes)
            w.u8(UInt8(salt.count))
            w.append(salt)
        case .keyFile, .device:
            w.append(salt)
        }
        return w.bytes
    }

    /// The encoded keyslot (the value of a `0x8004` header field).
    public var encoded: [UInt8] { parameterBytes + nonce + wrapped }

    /// Decodes a keyslot field value.
    ///
    /// - Throws: `structure` for an unknown kind or scope or a bad length (R-KS-1).
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(VaultFormatError) -> Keyslot {
        var r = ByteReader(bytes)
        guard let kind = Kind(rawValue: try r.u8("keyslot kind")) else {
            throw VaultFormatError(.structure, "keyslot has an unknown kind")
        }
        guard let scope = Scope(rawValue: try r.u8("keyslot scope")) else {
            throw VaultFormatError(.structure, "keyslot has an unknown scope")
        }
        var kdf: KDFParameters?
        let salt: [UInt8]
        switch kind {
        case .password, .passwordAndKeyFile:
            guard try r.u8("KDF algorithm") == argon2idAlgorithm else {
                throw VaultFormatError(.kdfRejected, "keyslot names an unknown KDF algorithm")
            }
            kdf = KDFParameters(
                memoryKiB: try r.u32("KDF memory"),
                iterations: try r.u32("KDF passes"),
                lanes: try r.u32("KDF lanes")
            )
            let saltLength = Int(try r.u8("salt length"))
            guard (16...64).contains(saltLength) else {
                throw VaultFormatError(.kdfRejected, "keyslot salt length \(saltLength) is outside 16...64")
            }
            salt = Array(try r.read(saltLength, "salt"))
        case .keyFile, .device:
            salt = Array(try r.read(32, "salt"))
        }
        let nonce = Array(try r.read(24, "keyslot nonce"))
        let wrapped = Array(try r.read(48, "wrapped key"))
        guard r.isAtEnd else { throw VaultFormatError(.structure, "keyslot has \(r.remaining) trailing bytes") }
        return Keyslot(
            kind: kind,
            scope: scope,
            kdf: kdf,
            salt: salt,
            nonce: nonce,
            wrapped: wrapped
        )
    }
}
