// vault: creating a new file whose bytes are on disk before the call returns.

import Glibc

/// Creates new files durably: exclusively, with owner-only permissions, written, `fsync`ed,
/// and with the directory `fsync`ed so that the name survives a crash.
///
/// Every system call goes through the syscall table (`EINTR` retries, fault injection), as the
/// atomic writer's do. Backups (``Vault/backup(of:to:credentials:now:)``) and the command-line
/// tool's exports are written with it.
///
/// ```swift
/// try DurableFile.create(at: "/srv/app/export.json", contents: bytes)
/// ```
public enum DurableFile {
    /// Creates `path`, which must not exist, holding `contents`.
    ///
    /// 1. Create the file with `O_CREAT | O_EXCL | O_NOFOLLOW` and `mode`: an existing file or a
    ///    symbolic link planted at the path is never written through.
    /// 2. Write every byte.
    /// 3. `fsync` the file, then `close` it.
    /// 4. `fsync` the directory, so that the new name is durable.
    ///
    /// When a step fails, the partly written file is removed.
    ///
    /// - Parameters:
    ///   - path: The new file; its directory must exist.
    ///   - contents: The bytes to write.
    ///   - mode: The permission bits (less the umask); `0600` by default.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when something is at `path`; a ``VaultIOError``
    ///   naming the step (`"open directory"`, `"create"`, `"write"`, `"fsync"`, `"close"`,
    ///   `"fsync directory"`) otherwise.
    public static func create(at path: String, contents: [UInt8], mode: mode_t = 0o600) throws(VaultIOError) {
        let (directoryPath, name) = split(path)
        guard !name.isEmpty, name != ".", name != "..", !path.utf8.contains(0) else {
            throw VaultIOError(.invalidPath, operation: "create", path: path, reason: "the path must name a file")
        }
        let directory = try step("open directory", directoryPath) { () throws(Errno) in
            try FileDescriptor.open(directoryPath, O_RDONLY | O_DIRECTORY)
        }
        defer { try? directory.close() }
        // (1) Exclusively: never reuse or follow whatever is at the path.
        let file: FileDescriptor
        do {
            file = try directory.createExclusive(name, mode: mode)
        } catch  where error == .fileExists {
            throw VaultIOError(
                .alreadyExists,
                operation: "create",
                errno: error,
                path: path,
                reason: "a file is already there"
            )
        } catch {
            throw VaultIOError.system("create", error, path: path)
        }
        try fill(file, named: name, in: directory, path: path, closing: "close") { () throws(VaultIOError) in
            // (2) Every byte; short writes loop and EINTR retries.
            try step("write", path) { () throws(Errno) in
                try contents.withUnsafeBytes { buffer in Result { () throws(Errno) in try file.writeAll(buffer) } }
                    .get()
            }
            // (3) Durable bytes before the call reports success. A failed fsync is never retried.
            try step("fsync", path) { () throws(Errno) in try file.sync() }
        }
        do {
            // (4) The name itself.
            try step("fsync directory", directoryPath) { () throws(Errno) in try directory.sync() }
        } catch {
            try? directory.unlink(name)
            throw error
        }
    }

    /// Runs `body` on `file`, just created as `name` in `directory`, then closes it; when `body`
    /// or the close fails, `name` is removed, so that no partial file stays behind.
    ///
    /// A failed `close` (`EIO` on some file systems) fails too. ``create(at:contents:mode:)``
    /// and the atomic writer fill their new files with it.
    ///
    /// - Parameters:
    ///   - path: The file's path, for the errors.
    ///   - closing: The name of the `close` step, such as `"close temporary file"`.
    ///   - body: The steps that fill the file, such as `write` and `fsync`.
    /// - Throws: `body`'s error, or a ``VaultIOError`` naming the `close` step.
    static func fill(
        _ file: FileDescriptor,
        named name: String,
        in directory: FileDescriptor,
        path: String,
        closing: String,
        _ body: () throws(VaultIOError) -> Void
    ) throws(VaultIOError) {
        do {
            try body()
        } catch {
            try? file.close()
            try? directory.unlink(name)
            throw error
        }
        do {
            try step(closing, path) { () throws(Errno) in try file.close() }
        } catch {
            try? directory.unlink(name)
            throw error
        }
    }

    /// Writes `contents` to `path` atomically: a new file beside it (``create(at:contents:mode:)``,
    /// named `.<name>.tmp-<random>`) is renamed over whatever is at `path`, so a reader sees the
    /// old file or the whole new one, never a part, and a crash leaves at most the temporary file.
    /// The new file has `mode` whatever the old one had. Only a regular file is replaced: a
    /// symbolic link, a device (`/dev/null`), a FIFO, a socket or a directory at `path` is
    /// refused, so that a rename never swaps a secret in for something that is not a file.
    ///
    /// - Throws: ``VaultIOError/Code/invalidPath`` when `path` names no file or something other
    ///   than a regular file; a ``VaultIOError`` naming the step otherwise (the temporary file is
    ///   removed).
    public static func write(at path: String, contents: [UInt8], mode: mode_t = 0o600) throws(VaultIOError) {
        let (directoryPath, name) = split(path)
        guard !name.isEmpty, name != ".", name != "..", !path.utf8.contains(0) else {
            throw VaultIOError(.invalidPath, operation: "create", path: path, reason: "the path must name a file")
        }
        var status = stat()
        if lstat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            let kind =
                switch status.st_mode & S_IFMT {
                case S_IFLNK: "a symbolic link"
                case S_IFDIR: "a directory"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFIFO: "a FIFO"
                default: "not a regular file"
                }
            throw VaultIOError(
                .invalidPath,
                operation: "replace",
                path: path,
                reason: "it is \(kind); only a regular file is replaced"
            )
        }
        let temporary =
            (directoryPath == "/" ? "" : directoryPath) + "/." + name + ".tmp-"
            + Hex.encode(SystemRandom().bytes(8))
        try create(at: temporary, contents: contents, mode: mode)
        do {
            try replace(path, with: temporary)
        } catch {
            try? remove(temporary)
            throw error
        }
    }

    /// Moves `source` over `target` in one atomic rename, then `fsync`s the directory. Both
    /// must be in the same directory (a backup next to its vault).
    ///
    /// The corresponding C function is `renameat2`.
    package static func replace(_ target: String, with source: String) throws(VaultIOError) {
        let (directoryPath, targetName) = split(target)
        let (sourceDirectory, sourceName) = split(source)
        guard sourceDirectory == directoryPath else {
            throw VaultIOError(.invalidPath, operation: "rename", path: source, reason: "not beside '\(target)'")
        }
        let directory = try step("open directory", directoryPath) { () throws(Errno) in
            try FileDescriptor.open(directoryPath, O_RDONLY | O_DIRECTORY)
        }
        defer { try? directory.close() }
        try step("rename", source) { () throws(Errno) in try directory.rename(sourceName, to: targetName) }
        try step("fsync directory", directoryPath) { () throws(Errno) in try directory.sync() }
    }

    /// Removes `path` (best effort is the caller's choice).
    ///
    /// The corresponding C function is `unlinkat`.
    package static func remove(_ path: String) throws(VaultIOError) {
        let (directoryPath, name) = split(path)
        let directory = try step("open directory", directoryPath) { () throws(Errno) in
            try FileDescriptor.open(directoryPath, O_RDONLY | O_DIRECTORY)
        }
        defer { try? directory.close() }
        try step("unlink", path) { () throws(Errno) in try directory.unlink(name) }
    }

    /// Splits at the last `/`: `("/a/b", "c")`, `("/", "c")` or `(".", "c")`.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }
}
