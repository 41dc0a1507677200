// vault-lock-bench: what the parent and its children share: the vault's names, the clock, the limit.

import Glibc
import Synchronization

/// The names every process uses. The vault is a throwaway one in a scratch directory.
enum Bench {
    static let password = "vault-lock-bench"
    static let service = "vault-lock-bench"
    static let counter = "counter"
    /// File descriptors a child inherits: it writes one byte on `ready` once its vault is open,
    /// then starts when `go` reaches end of file (the parent closes it for all children at once).
    static let readyDescriptor: Int32 = 3
    static let goDescriptor: Int32 = 4
}

/// How long each task of each child keeps updating.
enum Limit: Sendable {
    case seconds(Double)
    case iterations(Int)

    /// The command-line options that give this limit.
    var arguments: [String] {
        switch self {
        case .seconds(let seconds): ["--seconds", String(seconds)]
        case .iterations(let count): ["--iterations", String(count)]
        }
    }
}

/// The monotonic clock in nanoseconds; the same clock in every process of the machine.
///
/// The corresponding C function is `clock_gettime`.
func nanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// A time written by the thread that runs an update's transform and read by the task that awaited it.
final class Stamp: Sendable {
    private let value = Mutex<UInt64>(0)

    func set(_ time: UInt64) { value.withLock { $0 = time } }
    var time: UInt64 { value.withLock { $0 } }
}
