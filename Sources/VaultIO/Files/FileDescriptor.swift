// vault: a thin wrapper over POSIX file descriptors, in swift-system's style.

internal import CVaultSys
import Glibc

/// An open file descriptor.
///
/// Each method is one system call routed through ``Syscalls``, retried on
/// `EINTR` where a retry is safe, and throws the ``Errno`` the call reported.
/// Callers turn that into a ``VaultIOError`` naming the step with ``step(_:_:_:)``.
struct FileDescriptor: Hashable, Sendable {
    /// The raw descriptor.
    let rawValue: CInt

    /// `AT_FDCWD`: paths relative to the working directory.
    static let currentWorkingDirectory = FileDescriptor(rawValue: AT_FDCWD)

    // MARK: - Opening and closing

    /// Opens an existing file or directory. `O_CLOEXEC` is always added.
    ///
    /// The corresponding C function is `open`.
    static func open(_ path: String, _ flags: CInt, mode: mode_t = 0) throws(Errno) -> FileDescriptor {
        let table = Syscalls.current
        let fd = try Syscalls.retryingOnInterrupt { table.open(path, flags, mode) }.get()
        return FileDescriptor(rawValue: fd)
    }

    /// Creates the directory `path` with `mode` (less the umask).
    ///
    /// The corresponding C function is `mkdir`.
    static func makeDirectory(_ path: String, mode: mode_t) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.mkdir(path, mode) }.get()
    }

    /// Creates `name` in this directory for writing, failing if it exists
    /// (`O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`).
    ///
    /// The corresponding C function is `openat`.
    func createExclusive(_ name: String, mode: mode_t) throws(Errno) -> FileDescriptor {
        let table = Syscalls.current
        let fd = try Syscalls.retryingOnInterrupt { table.createExclusive(rawValue, name, mode) }.get()
        return FileDescriptor(rawValue: fd)
    }

    /// Closes the descriptor. Never retried: on Linux the descriptor is released even when `close` fails.
    ///
    /// The corresponding C function is `close`.
    func close() throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.once { table.close(rawValue) }.get()
    }

    /// Runs `body`, then closes the descriptor, whether or not `body` threw.
    ///
    /// An error from `body` wins over an error from `close`.
    func closeAfter<R>(_ body: () throws -> R) throws -> R {
        let result: R
        do {
            result = try body()
        } catch {
            try? close()
            throw error
        }
        try close()
        return result
    }

    // MARK: - Reading and writing

    /// Reads up to `buffer.count` bytes at `offset`, without moving the file position.
    ///
    /// The corresponding C function is `pread`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        let table = Syscalls.current
        return try Syscalls.retryingOnInterrupt {
            table.pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset))
        }.get()
    }

    /// Reads `count` bytes at `offset`, looping over short reads.
    ///
    /// - Returns: The bytes; fewer than `count` only when the file ends first.
    func read(count: Int, at offset: Int) throws(Errno) -> [UInt8] {
        var failure: Errno?
        // Not zeroed first: only the bytes read are kept (a whole records section is megabytes).
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            while initialized < count {
                do throws(Errno) {
                    let n = try read(
                        into: UnsafeMutableRawBufferPointer(rebasing: raw[initialized...]),
                        at: offset + initialized
                    )
                    if n == 0 { break }
                    initialized += n
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes every byte of `bytes` at the file position, looping over short writes.
    ///
    /// The corresponding C function is `write`.
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        let table = Syscalls.current
        try Self.loopingOverShortWrites(bytes.count) { done in
            table.write(rawValue, bytes.baseAddress.map { $0 + done }, bytes.count - done)
        }
    }

    /// Flushes the file's data and metadata to stable storage. Never retried: after
    /// a failed `fsync` the kernel may have dropped the dirty pages, so a second
    /// `fsync` that succeeds proves nothing.
    ///
    /// The corresponding C function is `fsync`.
    func sync() throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.once { table.fsync(rawValue) }.get()
    }

    /// Writes every byte of `bytes` into the vault file at `offset`: a format-3 commit's chunks or
    /// slot (``Syscall/pwriteVault``, apart from the lock's counter).
    ///
    /// The corresponding C function is `pwrite`.
    func writeVault(_ bytes: [UInt8], at offset: Int) throws(Errno) {
        try writeAll(bytes, at: offset, through: Syscalls.current.pwriteVault)
    }

    /// Writes every byte of `bytes` at `offset` with `pwrite`, one of the table's `pwrite`
    /// entries, without moving the file position, looping over short writes.
    func writeAll(
        _ bytes: [UInt8],
        at offset: Int,
        through pwrite: (CInt, UnsafeRawPointer?, Int, off_t) -> Int
    ) throws(Errno) {
        try Self.loopingOverShortWrites(bytes.count) { done in
            bytes.withUnsafeBytes { buffer in
                pwrite(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            }
        }
    }

    /// Calls `write` with the number of bytes written so far until `count` bytes are written:
    /// the loop over short writes of ``writeAll(_:)`` and ``writeAll(_:at:through:)``, each
    /// call retried on `EINTR`.
    private static func loopingOverShortWrites(_ count: Int, _ write: (_ done: Int) -> Int) throws(Errno) {
        var done = 0
        while done < count {
            let n = try Syscalls.retryingOnInterrupt { write(done) }.get()
            // A regular file never accepts zero bytes of a non-empty write; guard against a loop.
            if n == 0 { throw Errno.ioError }
            done += n
        }
    }

    /// Flushes the file's data (and the size, when it changed) to stable storage; never retried,
    /// as ``sync()``.
    ///
    /// The corresponding C function is `fdatasync`.
    func syncData() throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.once { table.datasync(rawValue) }.get()
    }

    /// Cuts the file to `length` bytes.
    ///
    /// The corresponding C function is `ftruncate`.
    func truncate(to length: Int) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.truncate(rawValue, off_t(length)) }.get()
    }

    // MARK: - Metadata

    /// The file's type, permissions, owner and size.
    ///
    /// The corresponding C function is `fstat`.
    func status() throws(Errno) -> FileStatus {
        let table = Syscalls.current
        var info = stat()
        _ = try Syscalls.once { table.fstat(rawValue, &info) }.get()
        return FileStatus(info)
    }

    /// Sets the permission bits.
    ///
    /// The corresponding C function is `fchmod`.
    func setPermissions(_ permissions: mode_t) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.fchmod(rawValue, permissions) }.get()
    }

    /// Sets the owner and group.
    ///
    /// The corresponding C function is `fchown`.
    func setOwner(user: uid_t, group: gid_t) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.fchown(rawValue, user, group) }.get()
    }

    // MARK: - Directory entries (self is a directory)

    /// Renames `name` to `newName` in this directory, with `renameat2` flags.
    ///
    /// The corresponding C function is `renameat2`.
    func rename(_ name: String, to newName: String, flags: CUnsignedInt = 0) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.rename(rawValue, name, newName, flags) }.get()
    }

    /// Adds the hard link `newName` to `name` in this directory; fails if `newName` exists.
    ///
    /// The corresponding C function is `linkat`.
    func link(_ name: String, as newName: String) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.link(rawValue, name, newName) }.get()
    }

    /// Removes `name` from this directory.
    ///
    /// The corresponding C function is `unlinkat`.
    func unlink(_ name: String) throws(Errno) {
        let table = Syscalls.current
        _ = try Syscalls.retryingOnInterrupt { table.unlink(rawValue, name) }.get()
    }
}

/// What `fstat` reports about a file, as much as VaultIO needs.
struct FileStatus: Hashable, Sendable {
    /// The permission bits (`st_mode & 0o7777`).
    var permissions: mode_t
    /// The owner.
    var user: uid_t
    /// The group.
    var group: gid_t
    /// The size in bytes.
    var size: Int
    /// Whether this is a regular file.
    var isRegularFile: Bool
    /// The device and inode: which file this is.
    var identity: FileIdentity

    init(_ info: stat) {
        permissions = info.st_mode & 0o7777
        user = info.st_uid
        group = info.st_gid
        size = Int(info.st_size)
        isRegularFile = info.st_mode & S_IFMT == S_IFREG
        identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
