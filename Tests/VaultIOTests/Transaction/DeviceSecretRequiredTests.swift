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

    /// Before, a read with no device secret configured said `.otherDevice` where a write said
    /// `.deviceSecretRequired`: an app was told the item was another machine's when it had only
    /// to configure its own. A device secret that does not match is still `.otherDevice`.
    @Test func readingThisDeviceOnlyItem_withoutDeviceSecret_throwsDeviceSecretRequired() throws {
        try withTemporaryDirectory { directory in
            let secret = makeDeviceSecretFile(in: directory)
            let vault = try makeVault(in: directory, configuration: deviceConfiguration(secret))
            try Keychain(service: "ds", vault: vault).accessibility(.alwaysThisDeviceOnly).set("v", forKey: "k")
            let without = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            let keychain = Keychain(service: "ds", vault: without).accessibility(.alwaysThisDeviceOnly)
            #expect(throws: KeychainError.deviceSecretRequired) { _ = try keychain.string(forKey: "k") }
            // Every call that meets the item says the same (a review found contains, attributes,
            // remove, update and set still said otherDevice).
            #expect(throws: KeychainError.deviceSecretRequired) { _ = try keychain.contains("k") }
            #expect(throws: KeychainError.deviceSecretRequired) { _ = try keychain.attributes(forKey: "k") }
            #expect(throws: KeychainError.deviceSecretRequired) { try keychain.remove("k") }
            #expect(throws: KeychainError.deviceSecretRequired) { try keychain.update("k", as: String.self) { $0 } }
            #expect(throws: KeychainError.deviceSecretRequired) { try keychain.set("w", forKey: "k") }
            let other = makeDeviceSecretFile(in: directory, name: "other.secret")
            let elsewhere = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: deviceConfiguration(other)
            )
            #expect(throws: KeychainError.otherDevice) {
                _ = try Keychain(service: "ds", vault: elsewhere).string(forKey: "k")
            }
        }
    }

    /// Found by a review: opening with held keys ignored `deviceSecretPath`, so an app that
    /// configured its device secret was told to configure it.
    @Test func heldKeysWithoutADeviceSecret_getTheConfiguredOne() throws {
        try withTemporaryDirectory { directory in
            let secret = makeDeviceSecretFile(in: directory)
            let vault = try makeVault(in: directory, configuration: deviceConfiguration(secret))
            try Keychain(service: "ds", vault: vault).accessibility(.alwaysThisDeviceOnly).set("v", forKey: "k")
            let bare = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(bare.heldKeys.deviceSecret == nil)
            let opened = try Vault(path: vault.path, keys: bare.heldKeys, configuration: deviceConfiguration(secret))
            #expect(
                try Keychain(service: "ds", vault: opened).accessibility(.alwaysThisDeviceOnly).string(forKey: "k")
                    == "v"
            )
        }
    }

    /// A Keychain call's error keeps what its case carries when wrapped as a `VaultError`.
    @Test func vaultErrorOfAKeychainCall_keepsTheStepAndErrno() {
        let wrapped = VaultError(KeychainError.io(step: "fsync directory", errno: .ioError))
        #expect(wrapped.operation == "fsync directory" && wrapped.errno == .ioError)
    }
}
