// vault: a read-only configuration reads and never creates or changes a file (L-RO-1).

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Read-only configuration")
struct ReadOnlyConfigurationTests {
    /// The files under `directory`, with their sizes, as `name:size`, sorted.
    private func listing(_ directory: String) throws -> [String] {
        let names = try FileManager.default.subpathsOfDirectory(atPath: directory)
        return try names.sorted().map { name in
            let size = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int ?? -1
            return "\(name):\(size)"
        }
    }

    @Test func readsWork_writesThrowReadOnly_andNoFileIsCreatedOrChanged() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try Keychain(service: "api", vault: vault).set("token", forKey: "bot")
            var configuration = VaultConfiguration.insecureForTesting(
                deviceSecretPath: directory + "/missing.secret",
                rollbackState: .directory(directory + "/state")
            )
            configuration.readOnly = true
            // A missing device secret is an error even when creation is asked for.
            configuration.deviceSecretCreation = .ifMissing
            #expect(throws: VaultIOError.self) {
                try Vault(path: vault.path, credentials: .password(testPassword), configuration: configuration)
            }
            configuration.deviceSecretPath = nil
            let before = try listing(directory)
            let reader = try Vault(path: vault.path, credentials: .password(testPassword), configuration: configuration)
            let keychain = Keychain(service: "api", vault: reader)
            #expect(try keychain.string(forKey: "bot") == "token")
            let error = try #require(throws: VaultIOError.self) {
                try reader.write { try $0.set(makeDraft(service: "x")) }
            }
            #expect(error.code == .readOnly && error.reason.contains("VaultConfiguration.readOnly"))
            #expect {
                try keychain.set("other", forKey: "bot")
            } throws: { error in
                guard case KeychainError.invalidParameter(let reason) = error else { return false }
                return reason.contains("readOnly")
            }
            #expect(throws: VaultIOError(.readOnly)) {
                try Vault.create(
                    at: directory + "/new.vault",
                    credentials: .password("pw"),
                    configuration: configuration
                )
            }
            // No state directory, no lock file, no temporary file, no change to the vault.
            #expect(try listing(directory) == before)
            #expect(!FileManager.default.fileExists(atPath: directory + "/state"))
        }
    }
}
