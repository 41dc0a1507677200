// VaultFormat tests: keyed secret fingerprints (Spec/cli.md, "git-diff", R-GD-3).

import Testing
import VaultFormat

@Suite("Secret fingerprint") struct SecretFingerprintTests {
    let random = SeededRandom(seed: "fingerprint")

    func makeKeys(_ master: MasterKey, deviceSecret: DeviceSecret? = nil) -> VaultKeys {
        KeyHierarchy.keys(master: master, deviceSecret: deviceSecret, vaultID: Array(repeating: 7, count: 16))
    }

    @Test func sameInputs_sameFingerprint_otherSecretItemOrKey_otherFingerprint() throws {
        let vaultID = [UInt8](repeating: 7, count: 16)
        let keys = makeKeys(random.key())
        let item = ItemID(random: random)
        func fingerprint(_ secret: String, _ id: ItemID, _ k: VaultKeys, _ c: ProtectionClass = .whenUnlocked) throws
            -> [UInt8]
        {
            try SecretFingerprinter(keys: k, vaultID: vaultID).fingerprint(
                of: SecretBytes(utf8: secret),
                itemID: id,
                protection: c
            )
        }
        let first = try fingerprint("hunter2", item, keys)
        #expect(first.count == secretFingerprintByteCount)
        #expect(try fingerprint("hunter2", item, keys) == first)
        #expect(try fingerprint("hunter3", item, keys) != first)
        // Two items holding the same secret do not show it.
        #expect(try fingerprint("hunter2", ItemID(random: random), keys) != first)
        // Under another vault's keys (or after a rekey), the same secret gives another fingerprint.
        #expect(try fingerprint("hunter2", item, makeKeys(random.key())) != first)
        // Each class has its own fingerprint key.
        #expect(try fingerprint("hunter2", item, keys, .afterFirstUnlock) != first)
        // Not a plain (unkeyed) BLAKE2b of the secret: that would be a dictionary oracle.
        #expect(first != BLAKE2b.hash(Array("hunter2".utf8), length: secretFingerprintByteCount))
    }

    @Test func classKeyNotHeld_throws() throws {
        let keys = makeKeys(random.key())
        #expect(throws: VaultFormatError(.foreignDevice)) {
            try SecretFingerprinter(keys: keys, vaultID: [UInt8](repeating: 7, count: 16)).fingerprint(
                of: SecretBytes(utf8: "x"),
                itemID: ItemID(random: random),
                protection: .whenUnlockedThisDeviceOnly
            )
        }
    }
}
