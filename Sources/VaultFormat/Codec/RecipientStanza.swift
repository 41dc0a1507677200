// vault: recipient stanzas (format 1.2): the master key wrapped to an X25519 public key.

/// One recipient stanza, the value of a `0x0001` header field in a file of minor 2 or above.
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0 | 1 | kind: 1 (X25519) |
/// | 1 | 1 | scope: 0 (master key) |
/// | 2 | 32 | ephemeral public key |
/// | 34 | 24 | nonce |
/// | 58 | 48 | wrapped master key |
/// | 106 | 24 | info nonce |
/// | 130 | 113 | sealed info: recipient public key, name |
///
/// Spec: Spec/format-v1.2.md, "Recipient stanzas" (R12-RCP-1).
package struct RecipientStanza: Hashable, Sendable {
    /// The header field type of a stanza (non-critical).
    package static let fieldType: UInt16 = 0x0001
    /// Bytes of an encoded stanza.
    package static let byteCount = 243
    /// The only kind: X25519.
    package static let kindX25519: UInt8 = 1
    /// The most stanzas a header may hold.
    package static let maximumCount = 32
    /// The longest recipient name, in UTF-8 bytes.
    package static let maximumNameByteCount = 64
    /// Bytes of the sealed info's plaintext: key, name length, name padded to 64 bytes.
    static let infoPlaintextByteCount = 32 + 1 + maximumNameByteCount

    /// The ephemeral X25519 public key of this stanza.
    package var ephemeralKey: [UInt8]
    /// The nonce of ``wrapped``.
    package var nonce: [UInt8]
    /// `Seal(KEK, nonce, MK, AD)`: 48 bytes.
    package var wrapped: [UInt8]
    /// The nonce of ``info``.
    package var infoNonce: [UInt8]
    /// `Seal(RIK, infoNonce, R || len || name || padding, AD_info)`: 113 bytes.
    package var info: [UInt8]

    /// The bytes before the nonce (kind, scope, ephemeral key): bound into both associated data.
    var prefix: [UInt8] { [Self.kindX25519, 0] + ephemeralKey }

    /// The encoded field value.
    package var encoded: [UInt8] { prefix + nonce + wrapped + infoNonce + info }

    /// Decodes a field value.
    ///
    /// - Throws: `structure` for a wrong length, kind or scope (R12-RCP-1).
    package static func decode(_ bytes: ArraySlice<UInt8>) throws(VaultFormatError) -> RecipientStanza {
        guard bytes.count == byteCount else {
            throw VaultFormatError(.structure, "recipient stanza has length \(bytes.count), expected \(byteCount)")
        }
        var r = ByteReader(bytes)
        guard try r.u8("recipient kind") == kindX25519 else {
            throw VaultFormatError(.structure, "recipient stanza has an unknown kind")
        }
        guard try r.u8("recipient scope") == 0 else {
            throw VaultFormatError(.structure, "recipient stanza has an unknown scope")
        }
        return RecipientStanza(
            ephemeralKey: Array(try r.read(32, "ephemeral key")),
            nonce: Array(try r.read(24, "recipient nonce")),
            wrapped: Array(try r.read(48, "wrapped key")),
            infoNonce: Array(try r.read(24, "recipient info nonce")),
            info: Array(try r.read(113, "recipient info"))
        )
    }
}

/// A recipient of a vault as its master-key holder sees it: the public key and a name.
public struct Recipient: Hashable, Sendable {
    /// The recipient's public key.
    public let key: RecipientKey
    /// A name for people (0 to 64 UTF-8 bytes), such as `alice@laptop` or `ci-deploy`.
    public let name: String

    /// Pairs a key with a name.
    public init(key: RecipientKey, name: String) {
        self.key = key
        self.name = name
    }
}
