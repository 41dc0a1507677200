// vault: reading a named input (a password file, a template, an export) with one wording for its failures.

import Glibc

extension SecretInput {
    /// Reads the file at `path` to its end, naming it `what` in the error of a failure.
    ///
    /// ```swift
    /// var template = try SecretInput.read("template", at: path, limit: 16 << 20, why: "a template is at most 16 MiB")
    /// ```
    ///
    /// - Parameters:
    ///   - what: The input, as a sentence names it: `"password file"`.
    ///   - path: The file.
    ///   - showingPath: Whether the error quotes `path`; `false` when the path came from somewhere
    ///     that may hold a secret by mistake (an environment variable).
    ///   - limit: The most bytes accepted.
    ///   - why: Why the limit, for the error of a longer input (default: a password's limit).
    /// - Throws: ``VaultIOError/Code/invalidInput`` for an input over `limit` (the message gives the
    ///   limit, never the content); ``VaultIOError/Code/unreadableInput`` with the system's reason.
    public static func read(
        _ what: String,
        at path: String,
        showingPath: Bool = true,
        limit: Int? = nil,
        why: String? = nil
    ) throws(VaultIOError) -> [UInt8] {
        try describing(showingPath ? "\(what) '\(path)'" : what, limit: limit, why: why) { () throws(VaultIOError) in
            try read(path: path, limit: limit ?? .max)
        }
    }

    /// Reads `descriptor` to its end (it stays open), naming it `what` in the error of a failure.
    ///
    /// - Throws: as ``read(_:at:showingPath:limit:why:)``.
    public static func read(
        _ what: String,
        from descriptor: CInt,
        limit: Int? = nil,
        why: String? = nil
    ) throws(VaultIOError) -> [UInt8] {
        try describing(what, limit: limit, why: why) { () throws(VaultIOError) in
            try read(descriptor: descriptor, limit: limit ?? .max)
        }
    }

    /// Runs `read`, and words a failure: too large, or the system's reason.
    private static func describing(
        _ what: String,
        limit: Int?,
        why: String?,
        _ read: () throws(VaultIOError) -> [UInt8]
    ) throws(VaultIOError) -> [UInt8] {
        do {
            return try read()
        } catch  where error.code == .tooLarge && limit != nil {
            let limit = limit ?? 0
            throw VaultIOError(
                .invalidInput,
                reason: "the \(what) is larger than \(limit >> 10) KiB; "
                    + (why ?? "a password is at most \(limit >> 10) KiB")
            )
        } catch {
            throw VaultIOError(
                .unreadableInput,
                reason: "cannot read the \(what): \(error.errno.map(\.description) ?? error.reason)"
            )
        }
    }
}
