// vault: configuration is explicit: the device secret in the initializer, no silently ignored
// second configuration of the standard vault.

import Foundation
import Testing

@testable import VaultIO

/// Spec: Spec/library-semantics.md, "Standard vault" (L-STD-4) and "Device secret".
@Suite("Explicit configuration")
struct ExplicitConfigurationTests {
    @Test func initializer_takesTheDeviceSecretAndItsCreation() {
        let configuration = VaultConfiguration(
            deviceSecretPath: "/tmp/x/device-secret",
            deviceSecretCreation: .ifMissing
        )
        #expect(configuration.deviceSecretPath == "/tmp/x/device-secret")
        #expect(configuration.deviceSecretCreation == .ifMissing)
        #expect(VaultConfiguration().deviceSecretCreation == .never)
    }

    /// A password vault with `…ThisDeviceOnly` items, set up in one expression.
    @Test func passwordVault_thisDeviceOnly_withDeviceSecretFromTheInitializer() throws {
        try withTemporaryDirectory { directory in
            let secretPath = directory + "/keys/device-secret"
            let configuration = VaultConfiguration.insecureForTesting(
                deviceSecretPath: secretPath,
                deviceSecretCreation: .ifMissing
            )
            let vault = try Vault.create(
                at: directory + "/app.vault",
                credentials: .password("pw"),
                configuration: configuration
            )
            let keychain = Keychain(service: "s", vault: vault).accessibility(.whenUnlockedThisDeviceOnly)
            try keychain.set("token", forKey: "k")
            #expect(try keychain.string(forKey: "k") == "token")
            #expect(FileManager.default.fileExists(atPath: secretPath))

            // Without a device secret the same vault cannot hold the item: the parameter matters.
            let bare = try Vault(
                path: directory + "/app.vault",
                credentials: .password("pw"),
                configuration: .insecureForTesting()
            )
            #expect(throws: (any Error).self) { try Keychain(service: "s", vault: bare).string(forKey: "k") }
        }
    }

    // L-STD-4
    @Test func standard_sameConfiguration_sharesOneInstance() throws {
        try withTemporaryDirectory { directory in
            let first = try Vault.standard(directory: directory, configuration: .insecureForTesting())
            let second = try Vault.standard(directory: directory, configuration: .insecureForTesting())
            #expect(first === second)
        }
    }

    // L-STD-4
    @Test func standard_differentConfiguration_throwsConfigurationConflict() throws {
        try withTemporaryDirectory { directory in
            let vault = try Vault.standard(directory: directory, configuration: .insecureForTesting())
            var other = VaultConfiguration.insecureForTesting()
            other.lockTimeout = .seconds(1)
            #expect(throws: VaultIOError(.configurationConflict)) {
                try Vault.standard(directory: directory, configuration: other)
            }
            // The shared instance still works, with its first configuration.
            try Keychain(service: "s", vault: vault).set("v", forKey: "k")
            #expect(vault.configuration.lockTimeout == .seconds(10))
        }
    }

    // L-STD-4: a call without a configuration (Keychain.standard's) joins the shared instance.
    @Test func standard_noConfiguration_getsTheSharedInstance() throws {
        try withTemporaryDirectory { directory in
            let vault = try Vault.standard(directory: directory, configuration: .insecureForTesting())
            #expect(try Vault.standard(directory: directory) === vault)
        }
    }

    // L-STD-4: the device secret the standard vault fills in is not a difference.
    @Test func standard_explicitDefaultDeviceSecretPath_isTheSameConfiguration() throws {
        try withTemporaryDirectory { directory in
            let first = try Vault.standard(directory: directory, configuration: .insecureForTesting())
            let second = try Vault.standard(
                directory: directory,
                configuration: .insecureForTesting(deviceSecretPath: directory + "/device-secret")
            )
            #expect(first === second)
        }
    }
}
