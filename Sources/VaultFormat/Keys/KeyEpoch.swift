// vault: fingerprints the rollback record keeps (Spec/rollback.md L-RB-8): which master key a
// generation is under, and which keyslots and recipient stanzas it carries. No secret.

extension VaultKeys {
    /// `E = BLAKE2b(16, key = HK, "VLTepoch" || vaultID)`: names the master key a generation is
    /// sealed under (its epoch) without revealing anything of it. `HK` derives from `MK` through
    /// `BK` (a rekey changes it), and every opener holds it, a limited recipient included, since
    /// it verifies the header MAC with it.
    package func epochFingerprint(vaultID: [UInt8]) -> [UInt8] {
        BLAKE2b.hash([Array("VLTepoch".utf8), vaultID], key: headerKey, length: 16)
    }
}

extension VaultHeader {
    /// For each keyslot and each recipient stanza, `BLAKE2b(16, "VLTcred1" || type || encoding)`
    /// with type 0x01 for a keyslot and 0x02 for a stanza: what the rollback record compares to
    /// notice a credential it saw removed coming back. Public header bytes only.
    package var credentialFingerprints: Set<[UInt8]> {
        var out = Set<[UInt8]>()
        for slot in keyslots { out.insert(BLAKE2b.hash([Array("VLTcred1".utf8), [1], slot.encoded], length: 16)) }
        for stanza in recipientStanzas {
            out.insert(BLAKE2b.hash([Array("VLTcred1".utf8), [2], stanza.encoded], length: 16))
        }
        return out
    }
}
