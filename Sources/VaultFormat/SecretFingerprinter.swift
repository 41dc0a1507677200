// vault: keyed fingerprints of secrets, for views that must show a change but never the secret.

/// The number of bytes of a secret fingerprint.
///
/// Spec: Spec/cli.md, "git-diff" (R-GD-3).
package let secretFingerprintByteCount = 8

/// Computes keyed fingerprints of items' secrets: a value that changes when the secret changes
/// and tells nothing about it to anyone who cannot already read it.
///
/// `FK(c) = Derive(SK(c), 1, "VLTfprnt")` and
/// `fingerprint = BLAKE2b(8, FK(c), "VLT1sfpr" || vaultID || itemID || secret)`, where `SK(c)` is
/// the secret key of the item's protection class. A plain hash of a low-entropy secret would be a
/// dictionary oracle for everyone who sees the output; under `FK(c)` only a holder of the class
/// key, who can decrypt the secret anyway, can compute or test it. The item ID in the message
/// keeps two items with the same secret from showing the same fingerprint.
///
/// Each class's `FK(c)` is derived once, into guarded memory, and wiped with the fingerprinter.
///
/// Spec: Spec/cli.md, "git-diff" (R-GD-3).
package final class SecretFingerprinter {
    private let keys: VaultKeys
    private let vaultID: [UInt8]
    private var fingerprintKeys: [ProtectionClass: SecretBytes] = [:]

    /// A fingerprinter for the items of the vault `vaultID` that `keys` open.
    package init(keys: VaultKeys, vaultID: [UInt8]) {
        self.keys = keys
        self.vaultID = vaultID
    }

    /// The fingerprint of one item's secret.
    ///
    /// - Parameters:
    ///   - secret: The item's decrypted secret.
    ///   - itemID: The item's ID.
    ///   - protection: The item's protection class (its secret key keys the fingerprint).
    /// - Returns: ``secretFingerprintByteCount`` bytes.
    /// - Throws: A ``VaultFormatError`` (`keyUnavailable`, `foreignDevice`) when the class key is not held.
    package func fingerprint(
        of secret: SecretBytes,
        itemID: ItemID,
        protection: ProtectionClass
    ) throws(VaultFormatError) -> [UInt8] {
        let key: SecretBytes
        if let cached = fingerprintKeys[protection] {
            key = cached
        } else {
            let secretKey = try keys.recordKeys(for: protection).secret
            key = SecretBytes(count: 32, protection: .guarded) { out in
                BLAKE2b.deriveKey(from: secretKey, id: 1, context: "VLTfprnt", into: out)
            }
            fingerprintKeys[protection] = key
        }
        return BLAKE2b.hash(
            [Array("VLT1sfpr".utf8), vaultID, itemID.bytes, secret],
            key: key,
            length: secretFingerprintByteCount
        )
    }
}
