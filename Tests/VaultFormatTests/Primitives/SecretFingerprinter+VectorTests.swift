// VaultFormat tests: the known-answer vector of the secret fingerprint (Spec/cli.md R-GD-3).

import Testing
import VaultFormat

@Suite("Secret fingerprint vector") struct SecretFingerprintVectorTests {
    /// The keys of Spec/format-v1.md 14.1, item ID 0x70...0x7F, secret "hunter2", class 0
    /// (whenUnlocked); computed independently with Python's hashlib.blake2b.
    @Test func matchesTheSpecVector() throws {
        let vaultID = (0..<16).map { 0x40 + UInt8($0) }
        let keys = KeyHierarchy.keys(
            master: MasterKey(secret: SecretBytes(bytes: (0..<32).map { UInt8($0) })),
            deviceSecret: nil,
            vaultID: vaultID
        )
        let fingerprint = try SecretFingerprinter(keys: keys, vaultID: vaultID).fingerprint(
            of: SecretBytes(utf8: "hunter2"),
            itemID: ItemID(bytes: (0..<16).map { 0x70 + UInt8($0) }),
            protection: .whenUnlocked
        )
        #expect(Hex.encode(fingerprint) == "18a59d76e216c35b")
    }
}
