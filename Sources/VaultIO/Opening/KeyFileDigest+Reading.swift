// vault: reading a key file as a stream, and the rule for a key file a new keyslot will use.

extension KeyFileDigest {
    /// The largest key file read, 16 MiB. A key file is hashed as a stream, so memory stays
    /// bounded anyway; the cap ends endless inputs such as `/dev/zero` with a clear error.
    public static let maximumFileByteCount = 16 << 20

    /// Reads the key file at `path` in 64 KiB pieces into a BLAKE2b stream.
    ///
    /// - Throws: ``VaultIOError/Code/unreadableInput`` when the file cannot be read;
    ///   ``VaultIOError/Code/invalidInput`` when it is empty or larger than ``maximumFileByteCount``.
    ///
    /// Spec: Spec/cli.md, "Key files".
    public static func read(fileAt path: String) throws(VaultIOError) -> KeyFileDigest {
        let hasher = KeyFileDigest.Hasher()
        do {
            try SecretInput.forEachPiece(ofFileAt: path, limit: maximumFileByteCount) { hasher.update($0) }
        } catch  where error.code == .tooLarge {
            throw VaultIOError(
                .invalidInput,
                path: path,
                reason: "the key file '\(path)' is larger than \(maximumFileByteCount >> 20) MiB; "
                    + "a key file is read to its end, so it must be a file, not an endless stream"
            )
        } catch {
            throw VaultIOError(
                .unreadableInput,
                path: path,
                reason: "cannot read the key file '\(path)': \(error.errno.map(\.description) ?? error.reason)"
            )
        }
        guard hasher.byteCount > 0 else {
            throw VaultIOError(.invalidInput, path: path, reason: "the key file '\(path)' is empty")
        }
        return hasher.finalize()
    }

    /// Refuses a key file too short for a new keyslot (R-KF-1), naming the file at `path` and
    /// the way to make one.
    public func checkForNewKeyslot(path: String) throws(VaultIOError) {
        guard !isLongEnoughForWriting else { return }
        throw VaultIOError(
            .invalidInput,
            path: path,
            reason: "the key file '\(path)' has \(byteCount) bytes; a new key-file keyslot needs at least "
                + "\(KeyFileDigest.minimumByteCount) random bytes (make one with --generate-key-file <file>)"
        )
    }
}
