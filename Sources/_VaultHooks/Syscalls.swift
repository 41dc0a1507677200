// vault hooks: VaultIO's system-call table, for the reliability suites in `Reliability/`.

import VaultIO

/// A system call that VaultIO routes through its table (the cases of VaultIO's own `Syscall`).
public enum Syscall: String, Sendable, CaseIterable {
    case open, createExclusive, pread, write, pwrite, fsync, close, rename, link, unlink, fchmod, fchown, fstat, lock
    case realpath, readDirectory, mkdir

    fileprivate var routed: VaultIO.Syscall { VaultIO.Syscall(rawValue: rawValue)! }
    fileprivate init(_ routed: VaultIO.Syscall) { self.init(rawValue: routed.rawValue)! }
}

/// Fault injection and observation of VaultIO's system calls, for the current task only.
public enum Syscalls {
    /// Runs `body` with `call` failing with `errno` after `after` successful calls, `times` times.
    public static func inject<R>(
        _ call: Syscall,
        errno: CInt,
        after: Int = 0,
        times: Int = 1,
        during body: () throws -> R
    ) rethrows -> R {
        try VaultIO.Syscalls.inject(call.routed, errno: errno, after: after, times: times, during: body)
    }

    /// Runs `body` with `observer` called before each system call VaultIO makes.
    public static func observe<R>(
        _ observer: @escaping @Sendable (Syscall) -> Void,
        during body: () throws -> R
    ) rethrows -> R {
        try VaultIO.Syscalls.observe({ observer(Syscall($0)) }, during: body)
    }

    /// Runs `body` with every `write` cut to at most `limit` bytes (short writes).
    public static func limitWrites<R>(toAtMost limit: Int, during body: () throws -> R) rethrows -> R {
        try VaultIO.Syscalls.limitWrites(toAtMost: limit, during: body)
    }
}
