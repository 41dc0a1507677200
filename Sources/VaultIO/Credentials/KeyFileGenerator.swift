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
    /// The file is written by ``DurableFile/create(at:contents:mode:)``: created exclusively
    /// (an existing file or symbolic link is never overwritten or followed) with mode `0600`,
    /// written and `fsync`ed with its directory, and removed again when a step fails.
    ///
    /// - Parameter path: Where the key file goes; nothing may exist there.
    /// - Returns: The new key file's digest, ready for ``Credentials/init(password:keyFileDigest:deviceSecret:)``.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when something is at `path`; a
    ///   ``VaultIOError`` naming the step (`"open directory"`, `"create key file"`,
    ///   `"write key file"`, `"fsync key file"`, `"fsync directory"`) otherwise.
    public static func generate(at path: String) throws -> KeyFileDigest {
        let secret = SecretBytes.random(count: byteCount)
        var bytes = secret.copyBytes()
        defer { wipe(&bytes) }
        try OwnerOnlyFile.create(
            at: path,
            bytes,
            operation: "create key file",
            reason: "a key file is never overwritten"
        )
        return KeyFileDigest(contents: secret)
    }

}
