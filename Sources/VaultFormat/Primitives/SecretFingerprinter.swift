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
/// the secret key of the item's protection class in the record's key domain. A plain hash of a low-entropy secret would be a
/// dictionary oracle for everyone who sees the output; under `FK(c)` only a holder of the class
/// key, who can decrypt the secret anyway, can compute or test it. The item ID in the message
/// keeps two items with the same secret from showing the same fingerprint.
///
/// Each class's `FK(c)` is derived once, into guarded memory, and wiped with the fingerprinter.
///
/// Spec: Spec/cli.md, "git-diff" (R-GD-3).
public final class SecretFingerprinter {
    private let keys: VaultKeys
    private let vaultID: [UInt8]
    private var fingerprintKeys: [Int: SecretBytes] = [:]

    /// A fingerprinter for the items of the vault `vaultID` that `keys` open.
    public init(keys: VaultKeys, vaultID: [UInt8]) {
        self.keys = keys
        self.vaultID = vaultID
    }

    /// The fingerprint of one item's secret.
    ///
    /// - Parameters:
    ///   - secret: The item's decrypted secret.
    ///   - itemID: The item's ID.
    ///   - protection: The item's protection class.
    ///   - domain: The record's key domain (format 2.0; 0 otherwise): the secret key of the class
    ///     in that domain keys the fingerprint, so that only who can decrypt the item can test it.
    ///     Keyed with domain 0's key, a grouped `always` item's fingerprint was testable by a
    ///     holder of `BK` alone, who guessed `hunter2` from the `git-diff` output.
    /// - Returns: 8 bytes (R-GD-3).
    /// - Throws: A ``VaultFormatError`` (`keyUnavailable`, `foreignDevice`) when the class key is not held.
    public func fingerprint(
        of secret: SecretBytes,
        itemID: ItemID,
        protection: ProtectionClass,
        domain: UInt8 = 0
    ) throws(VaultFormatError) -> [UInt8] {
        let key: SecretBytes
        let slot = Int(domain) << 8 | Int(protection.rawValue)
        if let cached = fingerprintKeys[slot] {
            key = cached
        } else {
            let secretKey = try keys.recordKeys(for: protection, domain: domain).secret
            key = SecretBytes(count: 32, protection: .guarded) { out in
                BLAKE2b.deriveKey(from: secretKey, id: 1, context: "VLTfprnt", into: out)
            }
            fingerprintKeys[slot] = key
        }
        return BLAKE2b.hash(
            [Array("VLT1sfpr".utf8), vaultID, itemID.bytes, secret],
            key: key,
            length: secretFingerprintByteCount
        )
    }
}
