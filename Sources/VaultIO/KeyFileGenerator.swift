// vault: writing a new random key file: exclusive, 0600, durable.

import Glibc
public import VaultFormat

/// Creates key files that are real keys: 32 random bytes that no dictionary holds.
///
/// A key-file keyslot has no work factor (Spec/format-v1.md, kind 2): whoever can guess the
/// file opens the vault at the cost of one BLAKE2b. A generated file has 256 bits of entropy,
/// as much as the master key it unlocks.
///
/// Spec: Spec/format-v1.md, R-KF-1; Spec/cli.md, "Key files".
public enum KeyFileGenerator {
    /// The number of random bytes in a generated key file.
    public static let byteCount = 32

    /// Writes a new key file of 32 random bytes at `path` and returns its digest.
    ///
    /// The steps, in order: (1) create `path` with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode
    /// `0600`, so an existing file or symbolic link is never overwritten or followed; (2) write
    /// the bytes and `fsync` the file; (3) `fsync` the directory, so the name survives a crash.
    /// When a step after (1) fails, the new file is removed again.
    ///
    /// - Parameter path: Where the key file goes; nothing may exist there.
    /// - Returns: The new key file's digest, ready for ``Credentials/init(password:keyFileDigest:deviceSecret:)``.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when something is at `path`; a
    ///   ``VaultIOError`` naming the step (`"open directory"`, `"create key file"`,
    ///   `"write key file"`, `"fsync key file"`, `"fsync directory"`) otherwise.
    public static func generate(at path: String) throws -> KeyFileDigest {
        let (directory, name) = split(path)
        let dir = try step("open directory", directory) { () throws(Errno) in
            try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
        }
        return try dir.closeAfter {
            let file: FileDescriptor
            do throws(Errno) {
                file = try dir.createExclusive(name, mode: 0o600)
            } catch  where error == .fileExists {
                throw VaultIOError(
                    .alreadyExists,
                    operation: "create key file",
                    errno: error,
                    path: path,
                    reason: "a key file is never overwritten"
                )
            } catch {
                throw VaultIOError.system("create key file", error, path: path)
            }
            let secret = SecretBytes.random(count: byteCount)
            do {
                try file.closeAfter {
                    try step("write key file", path) { () throws(Errno) in
                        try secret.withUnsafeBytes { buffer in
                            Result { () throws(Errno) in try file.writeAll(buffer) }
                        }
                        .get()
                    }
                    try step("fsync key file", path) { () throws(Errno) in try file.sync() }
                }
                try step("fsync directory", directory) { () throws(Errno) in try dir.sync() }
            } catch {
                try? dir.unlink(name)
                throw error
            }
            return KeyFileDigest(contents: secret)
        }
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}
