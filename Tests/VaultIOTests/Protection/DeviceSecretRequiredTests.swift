// vault: writing a ThisDeviceOnly item without a device secret says what to configure.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Device secret required")
struct DeviceSecretRequiredTests {
    @Test(arguments: ProtectionClass.allCases.filter(\.isDeviceBound))
    func settingThisDeviceOnlyItem_withoutDeviceSecret_throwsDeviceSecretRequired(_ protection: ProtectionClass) throws
    {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let keychain = Keychain(service: "ds", vault: vault).accessibility(protection)
            #expect(throws: KeychainError.deviceSecretRequired) { try keychain.set("value", forKey: "k") }
            #expect(try Keychain(service: "ds", vault: vault).allKeys().isEmpty, "nothing was written")
            let message = KeychainError.deviceSecretRequired.description
            #expect(message.contains("deviceSecretPath"), "the message says what to configure")
        }
    }

    @Test func vaultFormat_sealWithoutDeviceSecret_isDeviceSecretRequiredNotForeignDevice() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let error = #expect(throws: VaultFormatError.self) {
                try vault.write { txn in
                    var draft = makeDraft(service: "ds")
                    draft.protectionClass = .alwaysThisDeviceOnly
                    try txn.set(draft)
                }
            }
            #expect(error?.code == .deviceSecretRequired)
        }
    }
}
