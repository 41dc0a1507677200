// vault: the protection-class rules a transaction enforces (L-PC-5).
// Found by the security review of the library.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("VaultTransaction: protection classes")
struct TransactionProtectionClassTests {
    /// L-PC-5 at the Vault level: a synchronizable item cannot be device-bound.
    @Test func synchronizableDeviceBoundItem_isRefusedByTheTransaction() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(
                in: directory,
                configuration: deviceConfiguration(makeDeviceSecretFile(in: directory))
            )
            var draft = makeDraft(service: "sync")
            draft.attributes.synchronizable = true
            draft.protectionClass = .afterFirstUnlockThisDeviceOnly
            #expect(throws: VaultFormatError(.invalidParameter)) { try vault.write { try $0.set(draft) } }
        }
    }
}
