// vault: the attributes that make an item unique.

/// The attributes that identify an item uniquely, in the canonical encoding the
/// lookup tag is computed over.
///
/// Generic passwords are unique by (service, account, access group,
/// synchronizable); internet passwords by (server, account, protocol,
/// authentication type, port, path, security domain, access group,
/// synchronizable), as in Apple's keychain.
///
/// Spec: Spec/format-v1.md, "Lookup tag" (R-IDX-5).
public struct PrimaryKey: Hashable, Sendable {
    /// The canonical bytes.
    public let bytes: [UInt8]

    /// The primary key of an item of `itemClass` with `attributes`.
    public init(itemClass: ItemClass, attributes a: ItemAttributes) {
        var w = ByteWriter(capacity: 64)
        w.u8(itemClass.rawValue)
        func s(_ text: String) {
            let utf8 = text.utf8
            guard utf8.count <= AttributesCodec.maximumStringByteCount else {
                // No stored item has a value this long (R-ATT-4), so this key matches nothing;
                // mark it with a length no valid value has instead of trapping on LE16.
                w.u16(0xFFFF)
                w.append(BLAKE2b.hash(Array(utf8), length: 32))
                return
            }
            w.lengthPrefixed(utf8)
        }
        switch itemClass {
        case .genericPassword:
            s(a.service)
            s(a.account)
            s(a.accessGroup)
        case .internetPassword:
            s(a.server)
            s(a.account)
            s(a.protocol)
            s(a.authenticationType)
            w.u16(a.port)
            s(a.path)
            s(a.securityDomain)
            s(a.accessGroup)
        }
        w.u8(a.synchronizable ? 1 : 0)
        bytes = w.bytes
    }
}

/// The padding scheme for secrets and attributes.
///
/// Spec: Spec/format-v1.md, "Padding".
package enum Padding {
    /// The padded length of `length` bytes: multiples of 32 up to 4096, Padmé above.
    public static func paddedLength(_ length: Int) -> Int {
        precondition(length >= 0)
        if length <= 4096 { return 32 * ((max(length, 1) + 31) / 32) }
        let e = Int.bitWidth - 1 - length.leadingZeroBitCount
        let s = Int.bitWidth - e.leadingZeroBitCount
        let mask = (1 << (e - s)) - 1
        return (length + mask) & ~mask
    }
}

extension VaultFormatError {
    /// R-IDX-6: two live items answer for one primary key, which no writer of this vault makes
    /// (R-IDX-5). In format 3 a holder of `BK` alone or a recipient limited to one group can seal
    /// an item with the primary key of an item of a scope it cannot write (its lookup tag confirms
    /// the guess); a lookup that answered with either would give a reader that item's secret, or
    /// a writer's new secret to it.
    package static func samePrimaryKey(_ first: ItemID, _ second: ItemID) -> VaultFormatError {
        let (low, high) = first < second ? (first, second) : (second, first)
        return VaultFormatError(
            .recordCorrupt,
            "items \(low) and \(high) have the same primary key: one of them may have been written by "
                + "someone without the vault's master key; neither answers until one is removed"
        )
    }
}
