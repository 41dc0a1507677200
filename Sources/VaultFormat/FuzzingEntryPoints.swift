// vault: decoders behind authentication, reachable for fuzzing.

/// Entry points for the libFuzzer targets in `Fuzz/`.
///
/// The index and attribute decoders normally run only on bytes that passed an
/// AEAD check, so a fuzzer feeding whole files would rarely reach them. These
/// entry points hand them raw bytes directly. They are SPI: not part of the API.
@_spi(Fuzzing)
public enum FuzzingEntryPoints {
    /// Parses `plain` as a decrypted index for `header`; returns the entry count.
    public static func parseIndex(_ plain: [UInt8], header: VaultHeader) throws -> Int {
        let index = try VaultIndex.parse(plain, header: header)
        for position in 0..<index.count { _ = index.entry(at: position).recordLength }
        try index.checkIdentifiers()
        return index.count
    }

    /// Decodes `bytes` as an item's attributes.
    public static func decodeAttributes(_ bytes: [UInt8], internet: Bool) throws -> ItemAttributes {
        try AttributesCodec.decode(bytes[...], itemClass: internet ? .internetPassword : .genericPassword)
    }

    /// Encodes attributes (for building seed corpora).
    public static func encodeAttributes(_ attributes: ItemAttributes, internet: Bool) throws -> [UInt8] {
        try AttributesCodec.encode(attributes, itemClass: internet ? .internetPassword : .genericPassword)
    }
}
