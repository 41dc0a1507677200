// vault: the small secret files of one user: key files, identity files, device secrets.

import Glibc

/// Reads and creates the small files that hold one user's secrets, with one set of checks.
///
/// A device secret and an identity file are read the same way (only a regular file of this
/// user that nobody else can read is trusted, and what was read is wiped after use), and a key
/// file and an identity file are created the same way (exclusively, `0600`, durably, never over
/// an existing file).
enum OwnerOnlyFile {
    /// Reads `path` as ``read(at:maximumByteCount:failing:reason:)`` does, gives the bytes to
    /// `body`, and wipes them when `body` returns or throws.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumByteCount: The most bytes the caller accepts; one more is read, so that a
    ///     larger file shows.
    ///   - code: The error code for a file that fails the checks.
    ///   - what: The file's kind for the message of a file that fails the checks, such as
    ///     `"a device secret"`: "… must be a regular file owned by this user with mode 0600".
    ///   - body: Reads the secret out of the bytes; it keeps no reference to them.
    /// - Returns: What `body` returns.
    /// - Throws: As ``read(at:maximumByteCount:failing:reason:)``, or `body`'s error.
    static func withContents<R>(
        of path: String,
        maximumByteCount: Int,
        failing code: VaultIOError.Code,
        what: String,
        _ body: ([UInt8]) throws -> R
    ) throws -> R {
        var bytes = try read(
            at: path,
            maximumByteCount: maximumByteCount,
            failing: code,
            reason: "\(what) must be a regular file owned by this user with mode 0600"
        )
        defer { wipe(&bytes) }
        return try body(bytes)
    }

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
    /// - Returns: The bytes read; ``withContents(of:maximumByteCount:failing:what:_:)`` wipes them.
    /// - Throws: A ``VaultIOError`` with `code` when the checks fail; a ``VaultIOError``
    ///   (`"open"`, `"fstat"`, `"read"`) when the file cannot be read.
    private static func read(
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
