// vaulttool: the backup migrate keeps until the new file verifies.

import Foundation
import VaultIO

/// A byte-for-byte copy of a vault next to it, written and synced before any change. Every
/// file operation goes through VaultIO's ``DurableFile`` (EINTR retries, fault injection).
enum Backup {
    /// Copies `path` to `<path>.backup-<time>`, mode 0600, synced, read back and checked
    /// (``Vault/backup(of:to:credentials:now:)``).
    ///
    /// - Returns: The backup's path.
    static func write(of path: String) throws -> String {
        try Vault.backup(of: path, to: "\(path).backup-\(Int(Date().timeIntervalSince1970))").path
    }

    /// Puts the backup back in place of `path` (one atomic rename, then the directory synced).
    static func restore(_ backup: String, over path: String) throws {
        try DurableFile.replace(path, with: backup)
    }

    static func remove(_ backup: String) throws {
        try DurableFile.remove(backup)
    }
}
