// vault: a vault file replaced by another vault with the same ID is refused, never adopted
// through the device secret the vault holds (L-KEY-3).
// Found by the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Vault: held keys and a replaced file")
struct VaultHeldKeysTests {
    /// L-KEY-3: a file replaced by another vault with the same ID (the attacker's master key,
    /// a device keyslot for this machine's secret) is refused, never adopted.
    @Test func replacedVaultWithSameID_isRefused_notAdoptedThroughTheDeviceSecret() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            let victim = try makeVault(in: directory, configuration: deviceConfiguration(secretPath))
            try victim.write { try $0.set(makeDraft(service: "bank")) }
            let device = DeviceSecret(secret: SecretBytes(bytes: try fileBytes(secretPath)))
            let attackerMaster: MasterKey = SystemRandom().key()
            let slot = try KeyHierarchy.makeKeyslot(
                kind: .device,
                wrapping: attackerMaster.secret,
                scope: .masterKey,
                credentials: Credentials(deviceSecret: device),
                vaultID: victim.vaultID
            )
            let keys = KeyHierarchy.keys(master: attackerMaster, deviceSecret: device, vaultID: victim.vaultID)
            let forged = try VaultWriter(vaultID: victim.vaultID, created: 1, keyslots: [slot], keys: keys)
                .encode(now: 2)
            try Data(forged).write(to: URL(fileURLWithPath: victim.path))
            #expect(throws: VaultIOError(.credentialsRequired)) { try secret(in: victim, service: "bank") }
            #expect(throws: VaultIOError(.credentialsRequired)) {
                try victim.write { try $0.set(makeDraft(service: "new")) }
            }
        }
    }
}
