// vault: the one table through which VaultIO makes every system call.

internal import CVaultSys
import Glibc
import Synchronization

/// A system call that VaultIO routes through ``Syscalls``, named so that tests can
/// make it fail.
package enum Syscall: String, Sendable, CaseIterable {
    /// `open` of an existing path: the vault, its lock file, its directory, a device secret.
    case open
    /// `openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY, 0600)`: the temporary file.
    case createExclusive
    /// `pread`.
    case pread
    /// `write`.
    case write
    /// `pwrite`: the write lock's ticket counter.
    case pwrite
    /// `fsync`, of the temporary file and of the directory.
    case fsync
    /// `pwrite` into the vault file: a format-3 commit's bytes and its slot.
    case pwriteVault
    /// `fdatasync`, of a format-3 in-place commit.
    case datasync
    /// `ftruncate`, of a format-3 commit that did not complete.
    case truncate
    /// `close`.
    case close
    /// `renameat2`, with or without `RENAME_EXCHANGE` / `RENAME_NOREPLACE`.
    case rename
    /// `linkat`, used only where the file system lacks `RENAME_NOREPLACE`.
    case link
    /// `unlinkat`.
    case unlink
    /// `fchmod`.
    case fchmod
    /// `fchown`.
    case fchown
    /// `fstat`.
    case fstat
    /// `fcntl` with `F_OFD_SETLK`, `F_OFD_SETLKW` or `F_OFD_GETLK`: the write lock.
    case lock
    /// `realpath`.
    case realpath
    /// `opendir` / `readdir` / `closedir`.
    case readDirectory
    /// `mkdir`, for the device-secret directory.
    case mkdir
}

/// The system calls VaultIO makes, as one table of closures.
///
/// Every wrapper in ``FileDescriptor`` calls through ``Syscalls/current``, a
/// task-local table. Production code always sees ``live``; tests run a body
/// with a table whose closures fail on cue (``Syscalls/inject(_:errno:after:times:during:)``),
/// so that a fault reaches only the test that asked for it, even while other
/// tests run in parallel. Each closure has its C function's shape: it returns
/// `-1` (or `nil`) and sets `errno` on failure.
struct SyscallTable: Sendable {
    var open: @Sendable (UnsafePointer<CChar>, CInt, mode_t) -> CInt
    var createExclusive: @Sendable (CInt, UnsafePointer<CChar>, mode_t) -> CInt
    var pread: @Sendable (CInt, UnsafeMutableRawPointer?, Int, off_t) -> Int
    var write: @Sendable (CInt, UnsafeRawPointer?, Int) -> Int
    var pwrite: @Sendable (CInt, UnsafeRawPointer?, Int, off_t) -> Int
    var fsync: @Sendable (CInt) -> CInt
    var pwriteVault: @Sendable (CInt, UnsafeRawPointer?, Int, off_t) -> Int
    var datasync: @Sendable (CInt) -> CInt
    var truncate: @Sendable (CInt, off_t) -> CInt
    var close: @Sendable (CInt) -> CInt
    var rename: @Sendable (CInt, UnsafePointer<CChar>, UnsafePointer<CChar>, CUnsignedInt) -> CInt
    var link: @Sendable (CInt, UnsafePointer<CChar>, UnsafePointer<CChar>) -> CInt
    var unlink: @Sendable (CInt, UnsafePointer<CChar>) -> CInt
    var fchmod: @Sendable (CInt, mode_t) -> CInt
    var fchown: @Sendable (CInt, uid_t, gid_t) -> CInt
    var fstat: @Sendable (CInt, UnsafeMutablePointer<stat>) -> CInt
    /// `vault_ofd_lock(fd, command, type, start, length)`.
    var lock: @Sendable (CInt, CInt, CInt, Int64, Int64) -> CInt
    var realpath: @Sendable (UnsafePointer<CChar>) -> String?
    var readDirectory: @Sendable (UnsafePointer<CChar>) -> [String]?
    var mkdir: @Sendable (UnsafePointer<CChar>, mode_t) -> CInt

    /// The real system calls.
    static let live = SyscallTable(
        open: { Glibc.open($0, $1 | O_CLOEXEC, $2) },
        createExclusive: { Glibc.openat($0, $1, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, $2) },
        pread: { Glibc.pread($0, $1, $2, $3) },
        write: { Glibc.write($0, $1, $2) },
        pwrite: { Glibc.pwrite($0, $1, $2, $3) },
        fsync: { Glibc.fsync($0) },
        pwriteVault: { Glibc.pwrite($0, $1, $2, $3) },
        datasync: { Glibc.fdatasync($0) },
        truncate: { Glibc.ftruncate($0, $1) },
        close: { Glibc.close($0) },
        rename: { vault_renameat2($0, $1, $2, $3) },
        link: { Glibc.linkat($0, $1, $0, $2, 0) },
        unlink: { Glibc.unlinkat($0, $1, 0) },
        fchmod: { Glibc.fchmod($0, $1) },
        fchown: { Glibc.fchown($0, $1, $2) },
        fstat: { Glibc.fstat($0, $1) },
        lock: { vault_ofd_lock($0, $1, $2, $3, $4) },
        realpath: { path in
            guard let resolved = Glibc.realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        },
        readDirectory: { path in
            guard let directory = opendir(path) else { return nil }
            defer { closedir(directory) }
            var names: [String] = []
            while let entry = readdir(directory) {
                names.append(
                    withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                )
            }
            return names
        },
        mkdir: { Glibc.mkdir($0, $1) }
    )
}

/// Routes VaultIO's system calls, and lets tests inject failures.
///
/// ```swift
/// // The directory fsync (the second fsync of a commit) fails with EIO.
/// try Syscalls.inject(.fsync, errno: EIO, after: 1) {
///     try vault.write { txn in try txn.set(draft) }
/// }
/// ```
package enum Syscalls {
    /// The table in effect for the current task: ``SyscallTable/live`` unless a test replaced it.
    @TaskLocal static var current: SyscallTable = .live

    /// Runs `body` with `call` failing with `errno` after `after` successful calls, `times` times in a row.
    ///
    /// Only `body` (and child tasks it starts) sees the fault; other tasks and
    /// threads keep the real calls. Injections nest.
    ///
    /// - Parameters:
    ///   - call: The system call to break.
    ///   - errno: The error number it reports, such as `EIO` or `EINTR`.
    ///   - after: How many calls succeed first.
    ///   - times: How many consecutive calls then fail; the ones after succeed again.
    ///   - body: The code to run.
    /// - Returns: What `body` returns.
    package static func inject<R>(
        _ call: Syscall,
        errno: CInt,
        after: Int = 0,
        times: Int = 1,
        during body: () throws -> R
    ) rethrows -> R {
        let fault = Fault(errno: errno, after: after, times: times)
        return try $current.withValue(current.failing(call, with: fault), operation: body)
    }

    /// Runs `body` with `observer` called before each system call VaultIO makes, with the call's name.
    ///
    /// For the reliability suites (`Reliability/`): a crash-point child counts the
    /// steps of a commit and ends itself with `_exit` at the n-th one; the I/O-error
    /// suite maps the n-th `fsync` or `close` to the commit step it belongs to. The
    /// observer runs on the calling thread, just before the call, and must not call
    /// into VaultIO. For `close` it runs just after the call (the descriptor is released
    /// either way, as with an injected `close` fault). Like
    /// ``inject(_:errno:after:times:during:)``, only `body` sees it.
    ///
    /// ```swift
    /// let steps = Mutex<[Syscall]>([])
    /// try Syscalls.observe({ call in steps.withLock { $0.append(call) } }) {
    ///     try vault.write { txn in try txn.set(draft) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - observer: Called with each call's name before the call is made.
    ///   - body: The code to run.
    /// - Returns: What `body` returns.
    package static func observe<R>(
        _ observer: @escaping @Sendable (Syscall) -> Void,
        during body: () throws -> R
    ) rethrows -> R {
        var table = current
        for call in Syscall.allCases {
            table = table.intercepting(call) {
                observer(call)
                return false
            }
        }
        return try $current.withValue(table, operation: body)
    }

    /// Runs `body` with every `write` transferring at most `limit` bytes, to exercise short writes.
    package static func limitWrites<R>(toAtMost limit: Int, during body: () throws -> R) rethrows -> R {
        var table = current
        let write = table.write
        table.write = { fd, buffer, count in write(fd, buffer, min(count, limit)) }
        return try $current.withValue(table, operation: body)
    }

    /// Calls `body` until it returns something other than `-1` with `EINTR`.
    ///
    /// Used for calls that are safe to repeat (`open`, `pread`, `write`,
    /// `fcntl`, `rename`). Never used for `fsync` (a failed `fsync` may have
    /// dropped dirty pages, so a retry that succeeds proves nothing) nor for
    /// `close` (on Linux the descriptor is gone even when `close` reports `EINTR`).
    static func retryingOnInterrupt<I: FixedWidthInteger>(_ body: () -> I) -> Result<I, Errno> {
        while true {
            let result = body()
            if result != -1 { return .success(result) }
            let errno = Errno.current
            if errno != .interrupted { return .failure(errno) }
        }
    }

    /// Calls `body` once, mapping `-1` to the current `errno`.
    static func once<I: FixedWidthInteger>(_ body: () -> I) -> Result<I, Errno> {
        let result = body()
        return result == -1 ? .failure(.current) : .success(result)
    }
}

/// One injected failure: after `after` calls, `times` calls fail with `errno`.
final class Fault: Sendable {
    private let errno: CInt
    private let after: Int
    private let times: Int
    private let calls = Mutex(0)

    init(errno: CInt, after: Int, times: Int) {
        self.errno = errno
        self.after = after
        self.times = times
    }

    /// Counts a call; when this call should fail, sets `errno` and returns `true`.
    func fires() -> Bool {
        let call = calls.withLock { count in
            defer { count += 1 }
            return count
        }
        guard call >= after && call < after + times else { return false }
        Glibc.errno = errno
        return true
    }
}

extension SyscallTable {
    /// A copy of the table whose `call` fails when `fault` fires.
    func failing(_ call: Syscall, with fault: Fault) -> SyscallTable {
        intercepting(call) { fault.fires() }
    }

    /// A copy of the table that runs `fails` before each `call` and, when it returns `true`,
    /// reports failure (`-1` or `nil`, with the `errno` that `fails` set) instead of making the call.
    func intercepting(_ call: Syscall, when fails: @escaping @Sendable () -> Bool) -> SyscallTable {
        var t = self
        switch call {
        case .open: t.open = { [f = t.open] in fails() ? -1 : f($0, $1, $2) }
        case .createExclusive: t.createExclusive = { [f = t.createExclusive] in fails() ? -1 : f($0, $1, $2) }
        case .pread: t.pread = { [f = t.pread] in fails() ? -1 : f($0, $1, $2, $3) }
        case .write: t.write = { [f = t.write] in fails() ? -1 : f($0, $1, $2) }
        case .pwrite: t.pwrite = { [f = t.pwrite] in fails() ? -1 : f($0, $1, $2, $3) }
        case .fsync: t.fsync = { [f = t.fsync] in fails() ? -1 : f($0) }
        case .pwriteVault: t.pwriteVault = { [f = t.pwriteVault] in fails() ? -1 : f($0, $1, $2, $3) }
        case .datasync: t.datasync = { [f = t.datasync] in fails() ? -1 : f($0) }
        case .truncate: t.truncate = { [f = t.truncate] in fails() ? -1 : f($0, $1) }
        case .close:
            t.close = { [f = t.close] fd in
                // Like Linux, release the descriptor even when reporting an error.
                let result = f(fd)
                return fails() ? -1 : result
            }
        case .rename: t.rename = { [f = t.rename] in fails() ? -1 : f($0, $1, $2, $3) }
        case .link: t.link = { [f = t.link] in fails() ? -1 : f($0, $1, $2) }
        case .unlink: t.unlink = { [f = t.unlink] in fails() ? -1 : f($0, $1) }
        case .fchmod: t.fchmod = { [f = t.fchmod] in fails() ? -1 : f($0, $1) }
        case .fchown: t.fchown = { [f = t.fchown] in fails() ? -1 : f($0, $1, $2) }
        case .fstat: t.fstat = { [f = t.fstat] in fails() ? -1 : f($0, $1) }
        case .lock: t.lock = { [f = t.lock] in fails() ? -1 : f($0, $1, $2, $3, $4) }
        case .realpath: t.realpath = { [f = t.realpath] in fails() ? nil : f($0) }
        case .readDirectory: t.readDirectory = { [f = t.readDirectory] in fails() ? nil : f($0) }
        case .mkdir: t.mkdir = { [f = t.mkdir] in fails() ? -1 : f($0, $1) }
        }
        return t
    }
}
