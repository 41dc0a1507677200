// VaultImport tests: a scratch vault, and reading text as an export.

import Foundation
import VaultIO

@testable import VaultImport

/// A fresh vault (fast, insecure KDF) in a directory of its own; `remove()` deletes both.
struct ScratchVault {
    let directory: String
    let vault: Vault

    init() throws {
        directory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("vaultimport-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        vault = try Vault.create(
            at: directory + "/test.vault",
            credentials: .password("test"),
            configuration: .insecureForTesting()
        )
    }

    /// Every item of the vault, with its secret as text.
    func items() throws -> [(item: VaultTransaction.Item, secret: String)] {
        try vault.write { txn in
            try txn.openedItems(skippingDamage: false).map { item in
                (item, String(decoding: try txn.secret(for: item.id)?.copyBytes() ?? [], as: UTF8.self))
            }
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Reads `text` as an export of `format`.
func read(_ format: ImportFormat, _ text: String) throws(ImportError) -> ImportBatch {
    try VaultImporter(format: format).read(Array(text.utf8))
}

/// The error reading `text` as `format` throws, or `nil` when it reads.
func readError(_ format: ImportFormat, _ text: String) -> ImportError? {
    do {
        _ = try read(format, text)
        return nil
    } catch {
        return error
    }
}

extension ImportEntry {
    var secretText: String { String(decoding: secret, as: UTF8.self) }
}
