// vault: the access-group table of format 2.0 (critical header field 0x8006).

/// One access group whose items are sealed under their own group key (format 2.0).
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0 | 1 | domain: 1 to 32 |
/// | 1 | 24 | nonce |
/// | 25 | 81 | `Seal(GNK, nonce, LE8(n) \|\| name \|\| 0x00*(64 − n), "VLT2grp_" \|\| vaultID \|\| domain)` |
///
/// Spec: Spec/format-v2.md, "Access-group table" (R2-GRP-1).
package struct AccessGroupEntry: Hashable, Sendable {
    /// The header field type (critical).
    package static let fieldType: UInt16 = 0x8006
    /// Bytes of an encoded entry.
    package static let byteCount = 106
    /// The most groups a header may hold, and the highest domain number.
    package static let maximumCount = 32
    /// The longest group name, in UTF-8 bytes.
    package static let maximumNameByteCount = PaddedName.maximumByteCount

    /// The key domain of the group's records (1 to 32); index entries name it.
    package var domain: UInt8
    /// The nonce of ``sealedName``.
    package var nonce: [UInt8]
    /// The group's name, sealed under `GNK = Derive(MK, 3, "VLTgrpnm")`: 81 bytes.
    package var sealedName: [UInt8]

    /// The encoded field value.
    package var encoded: [UInt8] { [domain] + nonce + sealedName }

    /// Decodes a field value.
    ///
    /// - Throws: `structure` for a wrong length or a domain outside 1...32 (R2-GRP-1).
    package static func decode(_ bytes: ArraySlice<UInt8>) throws(VaultFormatError) -> AccessGroupEntry {
        guard bytes.count == byteCount else {
            throw VaultFormatError(.structure, "access-group field has length \(bytes.count), expected \(byteCount)")
        }
        var r = ByteReader(bytes)
        let domain = try r.u8("group domain")
        guard (1...UInt8(maximumCount)).contains(domain) else {
            throw VaultFormatError(.structure, "access-group field has domain \(domain), outside 1...32")
        }
        return AccessGroupEntry(
            domain: domain,
            nonce: Array(try r.read(24, "group nonce")),
            sealedName: Array(try r.read(81, "group name"))
        )
    }
}
