// vault: the writers' lock: a thread mutex, then an OFD lock on `<vault>.lock`.

import Glibc

/// Serializes writers of one vault, across threads and across processes.
///
/// Two layers, taken in order and released in reverse:
///
/// 1. A mutex per ``WriteLock`` (so per ``Vault``) queues this process's threads
///    without polling.
/// 2. An open-file-description lock (`F_OFD_SETLK`) on the sidecar file
///    `<vault>.lock`, created with mode `0600`. OFD locks belong to an open file
///    description, not to a process, so each acquisition opens its own
///    descriptor: two `Vault` values in one process exclude each other as two
///    processes do, and closing the descriptor (or the process dying) releases
///    the lock.
///
/// The lock file exists only while a writer holds it (or after a writer died
/// holding it). The holder removes it *before* it releases the lock, and a
/// writer that has just taken the lock checks that `<vault>.lock` still names
/// the file it locked; if not (the previous holder removed it while this writer
/// waited on it), it starts over with a fresh open. So every holder holds the
/// lock on the file the path names, and two writers never hold locks on two
/// different files. Spec: Spec/cli.md, "The lock file".
///
/// The OFD lock is polled with short sleeps until the timeout, because
/// `F_OFD_SETLKW` cannot time out. Readers take no lock.
///
/// Holding the lock, the writer removes stale temporary files that a crashed
/// writer left (`.<vault>.tmp-*`); no live writer can own one then.
final class WriteLock: Sendable {
    /// The vault this lock protects.
    let target: VaultPath
    private let mutex = TimedMutex()

    /// Shortest and longest sleep between two tries of the OFD lock.
    static let firstPollInterval: Duration = .milliseconds(1)
    static let longestPollInterval: Duration = .milliseconds(16)

    init(target: VaultPath) {
        self.target = target
    }

    /// Runs `body` while holding the write lock.
    ///
    /// - Parameters:
    ///   - timeout: The longest time to wait for other writers, in this process and others.
    ///   - body: The work to do under the lock.
    /// - Returns: What `body` returns.
    /// - Throws: ``VaultIOError/Code/lockTimeout`` when the lock stays busy past `timeout`;
    ///   a ``VaultIOError`` naming `"open lock file"` or `"lock"`; or `body`'s error.
    func withLock<R>(timeout: Duration, _ body: () throws -> R) throws -> R {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        try HeldLocks.enter(target.lockPath)
        defer { HeldLocks.leave(target.lockPath) }
        guard mutex.lock(timeout: timeout) else { throw timeoutError(timeout) }
        defer { mutex.unlock() }

        let descriptor = try acquire(until: deadline, clock: clock, timeout: timeout)
        defer {
            // Remove the lock file while still holding it, then release it. A writer waiting
            // on this file finds, once it holds it, that the path no longer names it, and
            // starts over (see `acquire`). Failing to remove it only leaves the file behind.
            removeLockFile()
            // Closing the descriptor releases the OFD lock. Its result is ignored: on Linux the
            // descriptor (and so the lock) is gone even when `close` reports an error, and the lock
            // file holds no data. Reporting it would turn a commit that `body` made durable into a
            // failed write, and a caller that retries would apply its change twice.
            try? descriptor.close()
        }
        target.removeStaleTemporaryFiles()
        return try body()
    }

    /// Refuses a lock file that someone else could hold (issue 9, section 5).
    ///
    /// In a shared directory (`/tmp`, mode `1777`), another user can create `<vault>.lock`
    /// first and keep an OFD lock on it, which blocks every write. So the lock file must be a
    /// regular file owned by this user (or by the owner of the vault file, which is the case
    /// when root writes a user's vault) and readable or writable by nobody else: an OFD lock
    /// needs only an open descriptor, so read access is enough to block writers.
    ///
    /// Spec: Spec/library-semantics.md, "Write lock file".
    ///
    /// - Throws: ``VaultIOError/Code/untrustedLockFile`` naming the file and the fix.
    private func checkLockFile(_ descriptor: FileDescriptor) throws {
        let lockPath = target.lockPath
        let status = try step("fstat lock file", lockPath) { () throws(Errno) in try descriptor.status() }
        guard status.isRegularFile else {
            throw VaultIOError(
                .untrustedLockFile,
                operation: "open lock file",
                path: lockPath,
                reason: "the lock file '\(lockPath)' is not a regular file; remove it (it holds no data)"
            )
        }
        if status.user != geteuid() && status.user != vaultOwner() {
            throw VaultIOError(
                .untrustedLockFile,
                operation: "open lock file",
                path: lockPath,
                reason: "the lock file '\(lockPath)' belongs to another user (uid \(status.user)), who can block "
                    + "every write; remove it (it holds no data), or keep the vault in a directory that only you "
                    + "can write"
            )
        }
        guard status.permissions & 0o077 == 0 else {
            let mode = String(status.permissions, radix: 8)
            throw VaultIOError(
                .untrustedLockFile,
                operation: "open lock file",
                path: lockPath,
                reason: "the lock file '\(lockPath)' has mode \(mode), so other users can open it and block "
                    + "every write; run chmod 600 on it"
            )
        }
    }

    /// The owner of the vault file, or `nil` when it cannot be read (for example before it is created).
    private func vaultOwner() -> uid_t? {
        guard let file = try? FileDescriptor.open(target.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else {
            return nil
        }
        defer { try? file.close() }
        return try? file.status().user
    }

    /// Opens and locks `<vault>.lock`, starting over while the file locked is no longer the one
    /// the path names.
    private func acquire(until deadline: ContinuousClock.Instant, clock: ContinuousClock, timeout: Duration) throws
        -> FileDescriptor
    {
        let lockPath = target.lockPath
        while true {
            let descriptor = try step("open lock file", lockPath) { () throws(Errno) in
                try FileDescriptor.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
            }
            do {
                try checkLockFile(descriptor)
                var interval = Self.firstPollInterval
                while try !step("lock", lockPath, { () throws(Errno) in try descriptor.tryLock() }) {
                    let remaining = clock.now.duration(to: deadline)
                    guard remaining > .zero else { throw timeoutError(timeout) }
                    Self.sleep(for: min(interval, remaining))
                    interval = min(interval * 2, Self.longestPollInterval)
                }
                if try step("fstat lock file", lockPath, { () throws(Errno) in try isNamedByPath(descriptor) }) {
                    return descriptor
                }
            } catch {
                try? descriptor.close()
                throw error
            }
            try? descriptor.close()
        }
    }

    /// Whether `<vault>.lock` names the file open on `descriptor` (same device and inode).
    private func isNamedByPath(_ descriptor: FileDescriptor) throws(Errno) -> Bool {
        let current: FileDescriptor
        do {
            current = try FileDescriptor.open(target.lockPath, O_RDONLY | O_NOFOLLOW)
        } catch let error where error == .noSuchFileOrDirectory {
            return false
        }
        defer { try? current.close() }
        return try current.identity() == descriptor.identity()
    }

    /// Unlinks `<vault>.lock`; a failure leaves the file, which the next writer reuses.
    private func removeLockFile() {
        guard
            let directory = try? FileDescriptor.open(target.directory, O_RDONLY | O_DIRECTORY)
        else { return }
        try? directory.unlink(target.name + ".lock")
        try? directory.close()
    }

    private func timeoutError(_ timeout: Duration) -> VaultIOError {
        VaultIOError(
            .lockTimeout,
            operation: "lock",
            path: target.lockPath,
            reason: "another writer held the vault's write lock for more than \(timeout)"
        )
    }

    /// Blocks the calling thread.
    ///
    /// The corresponding C function is `nanosleep`.
    private static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}

/// A pthread mutex whose `lock` can give up after a timeout.
///
/// Swift's `Mutex` has no timed acquisition, which the write lock's timeout needs.
final class TimedMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the mutex, waiting at most `timeout`.
    ///
    /// The corresponding C function is `pthread_mutex_timedlock`.
    ///
    /// - Returns: Whether the mutex was taken.
    func lock(timeout: Duration) -> Bool {
        if pthread_mutex_trylock(mutex) == 0 { return true }
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = max(timeout, .zero).components
        let nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_mutex_timedlock(mutex, &deadline) == 0
    }

    /// Releases the mutex. Only the thread that took it may release it.
    ///
    /// The corresponding C function is `pthread_mutex_unlock`.
    func unlock() {
        pthread_mutex_unlock(mutex)
    }
}

/// The write locks each thread of this process holds or waits for, by lock-file path, so that a
/// write inside a write on the same thread fails at once instead of waiting for itself until the
/// lock timeout (L-LK-3). Any `Vault` instance for the file counts: two instances share the file.
enum HeldLocks {
    /// The lock-file paths one thread holds or waits for.
    private final class Paths {
        var held: Set<String> = []
    }

    /// Thread-local storage, not a process-wide lock: a process that forks while another thread
    /// is inside a write must not hand its child a lock that nobody will release.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Paths>.fromOpaque(pointer).release() }
        }
        precondition(created == 0, "pthread_key_create failed")
        return key
    }()

    /// This thread's paths.
    private static var paths: Paths {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Paths>.fromOpaque(pointer).takeUnretainedValue() }
        let paths = Paths()
        pthread_setspecific(key, Unmanaged.passRetained(paths).toOpaque())
        return paths
    }

    /// Records that this thread takes the lock of `path`.
    ///
    /// - Throws: ``VaultIOError/Code/reentrantWrite`` when this thread already holds it.
    static func enter(_ path: String) throws(VaultIOError) {
        guard paths.held.insert(path).inserted else {
            throw VaultIOError(
                .reentrantWrite,
                operation: "lock",
                path: path,
                reason: "a write was started inside a write to the same vault on the same thread; writes are "
                    + "not reentrant: make the change in the outer write's transaction (for example, not "
                    + "a Keychain set inside an update transform)"
            )
        }
    }

    /// Records that this thread no longer holds or waits for the lock of `path`.
    static func leave(_ path: String) {
        paths.held.remove(path)
    }
}
