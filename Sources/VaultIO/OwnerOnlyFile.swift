// vault: the small secret files of one user: key files, identity files, device secrets.

import Glibc

/// Reads and creates the small files that hold one user's secrets, with one set of checks.
///
/// A device secret and an identity file are read the same way (only a regular file of this
/// user that nobody else can read is trusted), and a key file and an identity file are created
/// the same way (exclusively, `0600`, durably, never over an existing file).
enum OwnerOnlyFile {
    /// Reads at most `maximumByteCount + 1` bytes of `path`, which must be a regular file (not a
    /// symbolic link, not a FIFO that blocks) owned by this user, with no permission for group
    /// or others: a secret planted by another user (say in a shared directory) must not be trusted.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumByteCount: The most bytes the caller accepts; one more is read, so that a
    ///     larger file shows.
    ///   - code: The error code for a file that fails the checks.
    ///   - reason: The message for a file that fails the checks.
    /// - Returns: The bytes read; the caller wipes them.
    /// - Throws: A ``VaultIOError`` with `code` when the checks fail; a ``VaultIOError``
    ///   (`"open"`, `"fstat"`, `"read"`) when the file cannot be read.
    static func read(
        at path: String,
        maximumByteCount: Int,
        failing code: VaultIOError.Code,
        reason: String
    ) throws -> [UInt8] {
        let descriptor = try step("open", path) { () throws(Errno) in
            try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        }
        var bytes: [UInt8] = []
        do {
            try descriptor.closeAfter {
                let status = try step("fstat", path) { () throws(Errno) in try descriptor.status() }
                guard status.isRegularFile, status.user == geteuid(), status.permissions & 0o077 == 0 else {
                    throw VaultIOError(code, operation: "open", path: path, reason: reason)
                }
                bytes = try step("read", path) { () throws(Errno) in
                    try descriptor.read(count: maximumByteCount + 1, at: 0)
                }
            }
        } catch {
            wipe(&bytes)  // a failed close leaves no copy of what was read (the device secret's old rule)
            throw error
        }
        return bytes
    }

    /// ``DurableFile/create(at:contents:mode:)`` with mode `0600`, and the caller's message for
    /// an existing file.
    ///
    /// - Parameters:
    ///   - operation: The operation an existing file fails, such as `"create key file"`.
    ///   - reason: Why it fails, such as `"a key file is never overwritten"`.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` with `operation` and `reason` when something
    ///   is at `path`; as ``DurableFile/create(at:contents:mode:)`` otherwise.
    static func create(at path: String, _ bytes: [UInt8], operation: String, reason: String) throws {
        do {
            try DurableFile.create(at: path, contents: bytes, mode: 0o600)
        } catch  where error.code == .alreadyExists {
            throw VaultIOError(.alreadyExists, operation: operation, errno: error.errno, path: path, reason: reason)
        }
    }
}
