// vaulttool: the backup migrate keeps until the new file verifies.

import Foundation
import Glibc
import VaultIO

/// A byte-for-byte copy of a vault next to it, written and synced before any change.
enum Backup {
    /// Copies `path` to `<path>.backup-<time>`, mode 0600, synced, read back and checked
    /// (``Vault/backup(of:to:credentials:now:)``).
    ///
    /// - Returns: The backup's path.
    static func write(of path: String) throws -> String {
        try Vault.backup(of: path, to: "\(path).backup-\(Int(Date().timeIntervalSince1970))").path
    }

    /// Puts the backup back in place of `path` (one atomic rename).
    static func restore(_ backup: String, over path: String) throws {
        guard rename(backup, path) == 0 else { throw failure("restore backup", backup) }
        try syncDirectory(of: path)
    }

    static func remove(_ backup: String) throws {
        guard unlink(backup) == 0 else { throw failure("remove backup", backup) }
    }

    private static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open directory", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync directory", directory) }
    }

    private static func failure(_ step: String, _ path: String) -> ToolError {
        ToolError("\(step) '\(path)': \(String(cString: strerror(errno))) (errno \(errno))", exitCode: .ioFailure)
    }
}
