// vaulttool: the backup migrate keeps until the new file verifies.

import Foundation
import Glibc

/// A byte-for-byte copy of a vault next to it, written and synced before any change.
enum Backup {
    /// Copies `path` to `<path>.backup-<time>`, mode 0600, and syncs it and its directory.
    ///
    /// - Returns: The backup's path.
    static func write(of path: String) throws -> String {
        var bytes = try CredentialOptions.readFile(path, what: "vault")
        defer { CredentialOptions.wipe(&bytes) }
        let backup = "\(path).backup-\(Int(Date().timeIntervalSince1970))"
        let descriptor = open(backup, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create backup", backup) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw failure("write backup", backup) }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw failure("fsync backup", backup) }
        try syncDirectory(of: backup)
        return backup
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
