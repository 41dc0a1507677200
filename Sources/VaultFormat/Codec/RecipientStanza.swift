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
/// Format 2.0 adds scope 2, a *limited* stanza (340 bytes): after the scope byte comes the
/// `domain` of one access group, and `wrapped` (144 bytes) seals `HK || IK || LK || GK(domain)`
/// instead of `MK`.
///
/// Spec: Spec/format-v1.2.md, "Recipient stanzas" (R12-RCP-1); Spec/format-v2.md (R2-RCP-1).
package struct RecipientStanza: Hashable, Sendable {
    /// The header field type of a stanza (non-critical).
    package static let fieldType: UInt16 = 0x0001
    /// Bytes of an encoded stanza.
    package static let byteCount = 243
    /// Bytes of an encoded limited stanza (format 2.0, scope 2).
    package static let limitedByteCount = 340
    /// Bytes of the keys a limited stanza wraps: `HK || IK || LK || GK`.
    package static let limitedKeysByteCount = 128
    /// The scope byte of a limited stanza (format 2.0, R2-RCP-1).
    package static let limitedScope: UInt8 = 2
    /// The only kind: X25519.
    package static let kindX25519: UInt8 = 1
    /// The most stanzas a header may hold.
    package static let maximumCount = 32
    /// The longest recipient name, in UTF-8 bytes.
    package static let maximumNameByteCount = PaddedName.maximumByteCount
    /// Bytes of the sealed info's plaintext: key, name length, name padded to 64 bytes.
    static let infoPlaintextByteCount = 32 + 1 + maximumNameByteCount

    /// `0` (the master key) or, in format 2.0, `2` (one access group's keys).
    package var scope: UInt8 = 0
    /// The key domain of a limited stanza (1 to 32); 0 for a master-key stanza.
    package var domain: UInt8 = 0
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
    var prefix: [UInt8] { (isLimited ? [Self.kindX25519, 2, domain] : [Self.kindX25519, 0]) + ephemeralKey }

    /// Whether the stanza wraps one access group's keys rather than the master key (scope 2).
    package var isLimited: Bool { scope == 2 }

    /// The encoded field value.
    package var encoded: [UInt8] { prefix + nonce + wrapped + infoNonce + info }

    /// Decodes a field value.
    ///
    /// - Throws: `structure` for a wrong length, kind or scope (R12-RCP-1).
    /// - Parameter allowingLimited: Whether scope 2 is defined (format 2.0, R2-RCP-1).
    package static func decode(_ bytes: ArraySlice<UInt8>, allowingLimited: Bool = false) throws(VaultFormatError)
        -> RecipientStanza
    {
        let limited = allowingLimited && bytes.count > 1 && bytes[bytes.startIndex + 1] == 2
        let expected = limited ? limitedByteCount : byteCount
        guard bytes.count == expected else {
            throw VaultFormatError(.structure, "recipient stanza has length \(bytes.count), expected \(expected)")
        }
        var r = ByteReader(bytes)
        guard try r.u8("recipient kind") == kindX25519 else {
            throw VaultFormatError(.structure, "recipient stanza has an unknown kind")
        }
        let scope = try r.u8("recipient scope")
        guard scope == 0 || (limited && scope == 2) else {
            throw VaultFormatError(.structure, "recipient stanza has an unknown scope")
        }
        var domain: UInt8 = 0
        if limited {
            domain = try r.u8("recipient domain")
            guard (1...UInt8(AccessGroupEntry.maximumCount)).contains(domain) else {
                throw VaultFormatError(.structure, "a limited recipient stanza has domain \(domain), outside 1...32")
            }
        }
        return RecipientStanza(
            scope: scope,
            domain: domain,
            ephemeralKey: Array(try r.read(32, "ephemeral key")),
            nonce: Array(try r.read(24, "recipient nonce")),
            wrapped: Array(try r.read(limited ? limitedKeysByteCount + 16 : 48, "wrapped key")),
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
