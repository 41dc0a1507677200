// vault: what an app shows for our errors through Foundation's `localizedDescription`, and a
// misconfigured device-secret file read as configuration, not damage (issue 18, section 6).

import Foundation
import Testing
import VaultIO

@Suite("Error descriptions, as an app")
struct ErrorDescriptionTests {
    /// Before: "The operation could not be completed. (VaultIO.KeychainError error 6.)".
    @Test func localizedDescription_isTheErrorsOwnSentence() throws {
        let errors: [any Error] = [
            KeychainError.lockTimeout,
            VaultIOError(.lockTimeout, operation: "lock", path: "/srv/app.vault"),
            VaultFormatError(.wrongCredential, "wrong password or key file"),
        ]
        for error in errors {
            #expect(!error.localizedDescription.contains("could not be completed"), "\(error)")
            #expect(error.localizedDescription == String(describing: error))
        }
        #expect(
            VaultIOError(.lockTimeout, operation: "lock", path: "/srv/app.vault").localizedDescription.contains(
                "/srv/app.vault"
            )
        )
        try withTemporaryDirectory { directory in
            do throws(VaultError) {
                _ = try VaultError.catching {
                    try Vault(
                        path: directory + "/none.vault",
                        credentials: .password("x"),
                        configuration: .insecureForTesting()
                    )
                }
            } catch {
                #expect(error.localizedDescription.contains(directory + "/none.vault"))
            }
        }
    }

    /// Before, a device-secret file others can read reached the app as "the vault is damaged".
    @Test func aDeviceSecretFileOthersCanRead_isAConfigurationError() throws {
        try withTemporaryDirectory { directory in
            let secretPath = directory + "/device.secret"
            var configuration = VaultConfiguration.insecureForTesting(
                deviceSecretPath: secretPath,
                deviceSecretCreation: .ifMissing
            )
            let vault = try Vault.create(
                at: directory + "/app.vault",
                credentials: .password("pw"),
                configuration: configuration
            )
            try Keychain(service: "api", vault: vault).accessibility(.whenUnlockedThisDeviceOnly).set(
                "t",
                forKey: "bot"
            )
            #expect(chmod(secretPath, 0o644) == 0)
            configuration.deviceSecretCreation = .never
            do throws(VaultError) {
                _ = try VaultError.catching {
                    try Vault(
                        path: directory + "/app.vault",
                        credentials: .password("pw"),
                        configuration: configuration
                    )
                }
                Issue.record("a device secret others can read was used")
            } catch {
                guard case .invalidParameter(let reason) = error.kind else {
                    Issue.record("\(error.kind)")
                    return
                }
                #expect(reason.contains(secretPath) && reason.contains("0600"), "\(reason)")
            }
        }
    }
}
