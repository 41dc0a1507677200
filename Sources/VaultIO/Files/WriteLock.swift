// vault: the writers' lock: a queue of OFD byte-range locks on `<vault>.lock`, in arrival order.

import Glibc
import VaultFormat

/// Serializes writers of one vault, across threads and across processes, in arrival order.
///
/// Every acquisition opens `<vault>.lock` (mode `0600`) on a descriptor of its own and takes
/// open-file-description locks (`F_OFD_SETLK`) on byte ranges of it. OFD locks belong to an open
/// file description, not to a process, so two threads, two `Vault` values and two processes all
/// exclude each other the same way, and closing the descriptor (or the process dying) releases
/// them. The ranges (Spec/library-semantics.md, L-LK-4):
///
/// - bytes 0–7, the **ticket** lock, held for a moment while a writer reads and advances the
///   ticket counter stored there (little-endian `UInt64`) and locks its own slot;
/// - byte 8, the **holder** lock: whoever holds it is the writer;
/// - byte 16 + *t*, the **slot** of ticket *t*, held from taking the ticket until the write ends.
///
/// A writer with ticket *t* waits (`F_OFD_SETLKW`, blocking in the kernel, no polling) for the
/// slot of *t* − 1, then for the holder lock. While it waits for the slot it looks every 200 ms
/// whether anybody holds the holder lock; when nobody did at two looks in a row, the writer ahead
/// is not moving (stopped, or in a debugger), and it goes on to the holder lock without it. So writers enter in ticket order and one that has
/// just released cannot take the lock again ahead of those waiting: it gets a later ticket. A
/// writer that dies or gives up releases its slot, and the next one goes on to wait for the holder
/// lock directly. The holder lock alone gives mutual exclusion; the slots only give the order.
///
/// The file exists only while someone holds or waits for the lock. The holder removes it at the
/// end when no other description holds any lock on it (checked under the ticket lock, so nobody
/// joins meanwhile), and every writer checks, after it took the ticket and after it took the
/// holder lock, that `<vault>.lock` still names the file it locked (same device and inode); if
/// not, it starts over with a fresh open. So every holder holds the file the path names, and two
/// writers never hold locks on two different files. Spec: Spec/cli.md, "The lock file".
///
/// Readers take no lock. Holding the lock, the writer removes stale temporary files that a
/// crashed writer left (`.<vault>.tmp-*`); no live writer can own one then.
final class WriteLock: Sendable {
    /// The vault this lock protects.
    let target: VaultPath

    /// Bytes 0–7: the ticket counter and the lock that guards it.
    static let ticketRange = LockRange(start: 0, length: 8)
    /// Byte 8: the writer's lock.
    static let holderRange = LockRange(start: 8, length: 1)
    /// Tickets run from 0 to below this, then start again at 0.
    static let ticketLimit: UInt64 = 1 << 48

    /// Byte 16 + `ticket`: the slot a writer holds from taking `ticket` until its write ends.
    static func slot(_ ticket: UInt64) -> LockRange {
        LockRange(start: 16 + Int64(ticket), length: 1)
    }

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
    ///   ``VaultIOError/Code/reentrantWrite`` when this thread already holds it; a ``VaultIOError``
    ///   naming `"open lock file"` or `"lock"`; or `body`'s error.
    func withLock<R>(timeout: Duration, _ body: () throws -> R) throws -> R {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        try HeldLocks.enter(target.lockPath)
        defer { HeldLocks.leave(target.lockPath) }
        let file = try acquire(until: deadline, timeout: timeout)
        defer { release(file) }
        target.removeStaleTemporaryFiles()
        return try body()
    }

    /// Opens `<vault>.lock`, queues for it and takes the holder lock; starts over while the file
    /// locked is no longer the one the path names.
    private func acquire(until deadline: ContinuousClock.Instant, timeout: Duration) throws -> LockFile {
        let lockPath = target.lockPath
        while true {
            let file: LockFile
            do {
                file = LockFile(try FileDescriptor.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600))
            } catch let errno where errno.rawValue == ELOOP || errno == .isDirectory {
                // Writers only ever create a regular file there: whatever this is, it is not theirs.
                let what = errno == .isDirectory ? "a directory" : "a symbolic link"
                throw VaultIOError(
                    .untrustedLockFile,
                    operation: "open lock file",
                    path: lockPath,
                    reason: "the lock file '\(lockPath)' is \(what), not a regular file; no writer creates one, "
                        + "so remove it (look at what it holds first)"
                )
            } catch {
                throw VaultIOError.system("open lock file", error, path: lockPath)
            }
            do {
                try checkLockFile(file.descriptor)
                if try queueAndHold(file, until: deadline, timeout: timeout) { return file }
            } catch {
                file.unlockAll()
                throw error
            }
            file.unlockAll()
        }
    }

    /// Takes a ticket on `file`, waits for the writer ahead, then takes the holder lock.
    ///
    /// - Returns: `false` when the path no longer names `file` (start over).
    private func queueAndHold(_ file: LockFile, until deadline: ContinuousClock.Instant, timeout: Duration)
        throws -> Bool
    {
        let lockPath = target.lockPath
        func wait(_ range: LockRange) throws {
            let held = try step("lock", lockPath) { () throws(Errno) in try file.lock(range, until: deadline) }
            guard held else { throw timeoutError(timeout) }
        }
        func namedByPath() throws -> Bool {
            try step("fstat lock file", lockPath) { () throws(Errno) in try isNamedByPath(file.descriptor) }
        }
        try wait(Self.ticketRange)
        guard try namedByPath() else { return false }
        let ticket = takeTicket(file)
        try step("lock", lockPath) { () throws(Errno) in try file.descriptor.unlock(Self.ticketRange) }
        if let ticket, ticket > 0 {
            // The writer ahead may be stopped (SIGSTOP, a debugger) while it waits: then nobody
            // holds the lock at two checks in a row, and this writer stops waiting for it.
            var idleChecks = 0
            let predecessor = Self.slot(ticket - 1)
            let followed = try step("lock", lockPath) { () throws(Errno) in
                try file.lock(predecessor, until: deadline) {
                    let idle = (try? file.descriptor.isLockedElsewhere(Self.holderRange)) == false
                    idleChecks = idle ? idleChecks + 1 : 0
                    return idleChecks >= 2
                }
            }
            if followed {
                try step("lock", lockPath) { () throws(Errno) in try file.descriptor.unlock(predecessor) }
            } else if ContinuousClock.now >= deadline {
                throw timeoutError(timeout)
            }
        }
        try wait(Self.holderRange)
        return try namedByPath()
    }

    /// Reads the ticket counter, locks the ticket's slot and advances the counter; the caller
    /// holds the ticket lock.
    ///
    /// - Returns: The ticket, or `nil` when the counter cannot be read or written (a full disk):
    ///   the writer then waits for the holder lock without a place in the queue, which costs
    ///   fairness, never exclusion.
    private func takeTicket(_ file: LockFile) -> UInt64? {
        let descriptor = file.descriptor
        guard let bytes = try? descriptor.read(count: 8, at: 0) else { return nil }
        // Fewer than 8 bytes (a new or truncated file) read as 0.
        var reader = ByteReader(bytes)
        var ticket = (try? reader.u64("ticket counter")) ?? 0
        // A slot already held means the counter went back (a file written by hand): skip ahead.
        var taken = false
        for _ in 0..<64 where !taken {
            if ticket >= Self.ticketLimit { ticket = 0 }
            guard let free = try? descriptor.tryLock(Self.slot(ticket)) else { return nil }
            if free { taken = true } else { ticket += 1 }
        }
        guard taken else { return nil }
        let next = (ticket + 1) % Self.ticketLimit
        do {
            var counter = ByteWriter(capacity: 8)
            counter.u64(next)
            try descriptor.writeAll(counter.bytes, at: 0)
        } catch {
            try? descriptor.unlock(Self.slot(ticket))
            return nil
        }
        return ticket
    }

    /// Ends a write: removes the lock file when nobody else holds or waits for it, then releases
    /// every lock of `file`.
    ///
    /// The removal happens under the ticket lock, so nobody takes a ticket meanwhile; a writer
    /// that was about to finds, once it holds the ticket lock, that the path no longer names the
    /// file, and starts over. Failing to remove it only leaves the file behind, for the next writer.
    private func release(_ file: LockFile) {
        let descriptor = file.descriptor
        if (try? descriptor.tryLock(Self.ticketRange)) == true,
            (try? descriptor.isLockedElsewhere(.wholeFile)) == false
        {
            removeLockFile()
        }
        file.unlockAll()
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
            reason: "the vault's write lock stayed busy for more than \(timeout): other writers held it or were "
                + "ahead in the queue; try again, or raise the lock timeout"
        )
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
