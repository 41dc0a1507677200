// vault: the per-user device-secret file: where it lives and how it is created.

import Glibc
public import VaultFormat

/// This machine's device secret: 32 random bytes in a per-user file.
///
/// The file lives at `$XDG_DATA_HOME/vault/device-secret`, or
/// `~/.local/share/vault/device-secret` when `XDG_DATA_HOME` is unset or not
/// absolute (the XDG Base Directory rule). ``VaultConfiguration/deviceSecretPath``
/// overrides it. The secret never leaves the machine and is never written into
/// a vault: it binds the `…ThisDeviceOnly` classes to this user on this machine,
/// and opens device keyslots.
///
/// Creation is race-free: the secret is written and `fsync`ed in a temporary file
/// created exclusively (`O_CREAT | O_EXCL`, mode `0600`), then published with
/// `link`, which fails when the name exists. Two processes creating it at once
/// therefore agree on one secret, and no reader ever sees a short file. Missing
/// directories are created with mode `0700`.
///
/// Spec: Spec/library-semantics.md, "Device secret" (L-DS-1 to L-DS-3).
public enum DeviceSecretFile {
    /// The default location for the user running this process, or `nil` when the
    /// process has no home directory and no absolute `XDG_DATA_HOME` (then a path must
    /// be given: a shared place such as `/tmp` is never used).
    public static var defaultPath: String? { dataDirectory().map { $0 + "/vault/device-secret" } }

    /// `$XDG_DATA_HOME`, or `$HOME/.local/share`, or the passwd entry's home; `nil` without any.
    static func dataDirectory() -> String? {
        if let xdg = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") { return xdg }
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            return home + "/.local/share"
        }
        if let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir, home.pointee == 0x2F {
            return String(cString: home) + "/.local/share"
        }
        return nil
    }

    /// `path` made absolute against the working directory.
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cwd == "/" ? "" : cwd) + "/" + path
    }

    /// Reads the device secret at `path`, creating it first when there is none.
    ///
    /// - Parameters:
    ///   - path: The device-secret file.
    ///   - device: The TPM that unseals a TPM-sealed file (Spec/tpm2.md L-TPM-7);
    ///     ``TPM2Device/default`` when `nil`. A new file is always a plain 32-byte secret.
    /// - Returns: The secret.
    /// - Throws: A ``VaultIOError`` naming the step (`"create directory"`,
    ///   `"create temporary file"`, `"write temporary file"`, `"fsync temporary file"`,
    ///   `"link"`, `"fsync directory"`, `"open"`, `"read"`), or
    ///   ``VaultIOError/Code/invalidDeviceSecret`` when an existing file is not 32 bytes.
    public static func loadOrCreate(at path: String, tpm2 device: TPM2Device? = nil) throws -> DeviceSecret {
        do {
            return try load(at: path, tpm2: device)
        } catch let error as VaultIOError where error.errno == .noSuchFileOrDirectory {
            try create(at: path)
            return try load(at: path)
        }
    }

    /// Creates a new device secret at `path`: 32 random bytes, mode `0600`, published only if
    /// no file is there (the directories are created with mode `0700`).
    ///
    /// Unlike ``loadOrCreate(at:tpm2:)``, an existing file is an error: a device secret is never
    /// replaced, because every `…ThisDeviceOnly` item sealed with it would become unreadable.
    ///
    /// - Parameter path: The device-secret file, such as ``defaultPath``.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when a file is at `path`; otherwise a
    ///   ``VaultIOError`` naming the step, as ``loadOrCreate(at:tpm2:)``.
    public static func createNew(at path: String) throws {
        guard try create(at: path) else {
            throw VaultIOError(
                .alreadyExists,
                operation: "link",
                errno: .fileExists,
                path: path,
                reason: "a device secret is already there"
            )
        }
    }

    /// Creates the file unless another process does first.
    ///
    /// - Returns: Whether this call published the file (`false`: one was already there).
    @discardableResult
    private static func create(at path: String) throws -> Bool {
        let (directory, name) = split(path)
        try makeDirectories(directory)
        let dir = try step("open directory", directory) { () throws(Errno) in
            try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
        }
        return try dir.closeAfter {
            let temporary = "." + name + ".tmp-" + Hex.encode(SystemRandom().bytes(8))
            let file = try step("create temporary file", directory + "/" + temporary) { () throws(Errno) in
                try dir.createExclusive(temporary, mode: 0o600)
            }
            defer { try? dir.unlink(temporary) }
            let secret = SecretBytes.random(count: DeviceSecret.byteCount)
            try file.closeAfter {
                try step("write temporary file", path) { () throws(Errno) in
                    try secret.withUnsafeBytes { buffer in Result { () throws(Errno) in try file.writeAll(buffer) } }
                        .get()
                }
                try step("fsync temporary file", path) { () throws(Errno) in try file.sync() }
            }
            do {
                try dir.link(temporary, as: name)
            } catch let error as Errno {
                // EEXIST: another process published its secret first; use that one.
                guard error == .fileExists else { throw VaultIOError.system("link", error, path: path) }
                return false
            }
            try step("fsync directory", directory) { () throws(Errno) in try dir.sync() }
            return true
        }
    }

    /// Creates `directory` and its missing parents with mode `0700`.
    static func makeDirectories(_ directory: String) throws {
        let directory = absolute(directory)
        var prefix = ""
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            do {
                try FileDescriptor.makeDirectory(prefix, mode: 0o700)
            } catch  where error == .fileExists {
                continue
            } catch {
                throw VaultIOError.system("create directory", error, path: prefix)
            }
        }
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// Reads a device-secret file: exactly 32 bytes, or a secret sealed by this machine's TPM
    /// (``createNew(at:sealedBy:pcrs:)``), in a regular file (not a symbolic link) owned by this
    /// user and readable by nobody else.
    ///
    /// - Parameters:
    ///   - path: The device-secret file.
    ///   - device: The TPM that unseals a TPM-sealed file; ``TPM2Device/default`` when `nil`.
    /// - Returns: The secret.
    /// - Throws: ``VaultIOError/Code/invalidDeviceSecret`` when the file is not a regular file,
    ///   belongs to another user, is readable or writable by group or others, or is neither 32
    ///   bytes nor a TPM-sealed secret; a TPM error of Spec/tpm2.md L-TPM-3 for a sealed one; a
    ///   ``VaultIOError`` (`"open"`, `"fstat"`, `"read"`) when it cannot be read.
    public static func load(at path: String, tpm2 device: TPM2Device? = nil) throws -> DeviceSecret {
        try OwnerOnlyFile.withContents(
            of: path,
            maximumByteCount: sealedMaximumByteCount,
            failing: .invalidDeviceSecret,
            what: "a device secret"
        ) { bytes in try secret(from: bytes, path: path, device: device) }
    }
}
