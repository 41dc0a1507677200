// vault: unlocking a locked vault: a wrong password never unlocks through a device keyslot.
// Found by the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Vault: unlock")
struct VaultLockingTests {
    /// A wrong password never unlocks through the device keyslot of the held device secret.
    @Test func unlockWithWrongPassword_failsEvenWithAMasterScopeDeviceKeyslot() throws {
        try withTemporaryDirectory { directory in
            let secretPath = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/v.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: deviceConfiguration(secretPath)
            )
            try vault.write { txn in
                try txn.replaceKeyslot(
                    at: 1,
                    kind: .device,
                    credentials: Credentials(),
                    kdf: nil,
                    scope: .masterKey,
                    rekey: nil
                )
            }
            vault.lock()
            #expect(throws: VaultFormatError(.wrongCredential)) { try vault.unlock(with: .password("wrong")) }
            #expect(vault.isLocked)
            try vault.unlock(with: .password(testPassword))
            #expect(!vault.isLocked)
        }
    }
}
