// vault hooks: VaultIO's system-call table, for the reliability suites in `Reliability/`.

import VaultIO

/// A system call that VaultIO routes through its table (the cases of VaultIO's own `Syscall`).
public enum Syscall: String, Sendable, CaseIterable {
    case open, createExclusive, pread, write, pwrite, fsync, datasync, truncate, close, rename, link, unlink, fchmod
    case fchown, fstat, lock
    case realpath, readDirectory, mkdir

    /// VaultIO's case: every case here is one of VaultIO's by name.
    fileprivate var routed: VaultIO.Syscall {
        guard let routed = VaultIO.Syscall(rawValue: rawValue) else { preconditionFailure("\(self) is not VaultIO's") }
        return routed
    }

    /// The case for VaultIO's: an exhaustive switch, so that a case added to VaultIO's table fails
    /// to compile here instead of failing at run time in a reliability suite.
    fileprivate init(_ routed: VaultIO.Syscall) {
        self =
            switch routed {
            case .open: .open
            case .createExclusive: .createExclusive
            case .pread: .pread
            case .write: .write
            case .pwrite: .pwrite
            case .fsync: .fsync
            case .datasync: .datasync
            case .truncate: .truncate
            case .close: .close
            case .rename: .rename
            case .link: .link
            case .unlink: .unlink
            case .fchmod: .fchmod
            case .fchown: .fchown
            case .fstat: .fstat
            case .lock: .lock
            case .realpath: .realpath
            case .readDirectory: .readDirectory
            case .mkdir: .mkdir
            }
    }
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
