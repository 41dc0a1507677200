// vault hooks: decoders behind authentication, reachable for fuzzing.

import VaultFormat

/// Entry points for the libFuzzer targets in `Fuzz/`.
///
/// The index and attribute decoders normally run only on bytes that passed an
/// AEAD check, so a fuzzer feeding whole files would rarely reach them. These
/// entry points hand them raw bytes directly. They are public only here, in `_VaultHooks`, which is not part of the API.
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

    /// The header checksum of `bytes` (BLAKE2b-256), for harnesses that edit a header and fix
    /// its checksum so that the field parser is reached.
    public static func headerChecksum(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        BLAKE2b.hash(bytes, length: 32)
    }

    /// A key-file vault holding `items`, with a deletion record for each of `removed` (for
    /// building seed corpora; the codec and key hierarchy are not public API).
    public static func keyFileVault(
        keyFile: SecretBytes,
        deviceSecret: DeviceSecret,
        items: [ItemDraft],
        removed: [ItemID],
        random: some RandomSource
    ) throws -> [UInt8] {
        let master: MasterKey = random.key()
        let vaultID = random.bytes(16)
        let keys = KeyHierarchy.keys(master: master, deviceSecret: deviceSecret, vaultID: vaultID)
        let slot = try KeyHierarchy.makeKeyslot(
            kind: .keyFile,
            wrapping: master.secret,
            scope: .masterKey,
            credentials: Credentials(keyFile: keyFile),
            vaultID: vaultID,
            random: random
        )
        var writer = try VaultWriter(vaultID: vaultID, created: 1, keyslots: [slot], keys: keys)
        for item in items { try writer.put(item, random: random) }
        for id in removed { try writer.remove(id, now: 2) }
        return try writer.encode(now: 3, random: random)
    }
}
