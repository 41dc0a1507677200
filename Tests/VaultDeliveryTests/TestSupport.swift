// VaultDelivery tests: a scratch vault holding a few items, and scratch files.

import Foundation
import VaultIO

/// A fresh vault (fast, insecure KDF) in a directory of its own, holding `items`
/// (service, account, secret); `remove()` deletes both.
struct ScratchVault {
    let directory: String
    let vault: Vault

    init(_ items: [(service: String, account: String, secret: [UInt8])] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vaultdelivery-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        vault = try Vault.create(
            at: directory + "/test.vault",
            credentials: .password("test"),
            configuration: .insecureForTesting()
        )
        try vault.write { txn in
            for item in items {
                try txn.upsert(
                    .genericPassword,
                    identity: ItemAttributes(service: item.service, account: item.account),
                    secret: SecretBytes(bytes: item.secret)
                )
            }
        }
    }

    /// The newest generation.
    func snapshot() throws -> VaultSnapshot { try vault.read { $0 } }

    /// Writes `text` to a file of the scratch directory and returns its path.
    func file(_ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
