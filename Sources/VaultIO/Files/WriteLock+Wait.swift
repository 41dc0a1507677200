// vault: a blocking wait for a byte-range lock that gives up at a deadline.

import Dispatch
import Glibc
import Synchronization

/// An open `<vault>.lock`, shared by the writer that opened it and by a wait that it gave up on.
///
/// The descriptor is closed when the last of them lets go: a wait that the writer abandoned at its
/// deadline still sits in `F_OFD_SETLKW` on this descriptor, and closing it under that wait could
/// hand the number to an unrelated file.
final class LockFile: Sendable {
    let descriptor: FileDescriptor

    init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    deinit {
        // Closing releases every lock this open file description still holds. Its result is
        // ignored: on Linux the descriptor is gone even when `close` reports an error.
        try? descriptor.close()
    }

    /// Releases every lock this open file description holds, at once.
    func unlockAll() {
        try? descriptor.unlock(.wholeFile)
    }

    /// Takes `range`, waiting until `deadline` at most.
    ///
    /// `F_OFD_SETLKW` sleeps in the kernel until the range is free, with no timeout. So the
    /// wait runs on a thread of its own and the caller waits for that thread until the deadline.
    /// A wait given up on stays in the kernel until it gets the range, and then releases it at
    /// once. At most ``LockFile/waitLimit`` waits (each a thread) exist per process, counting
    /// those given up on; beyond that, and when no thread can be created, the range is polled.
    ///
    /// - Parameters:
    ///   - range: The bytes to lock.
    ///   - deadline: When to give up.
    ///   - stalled: Asked every ``LockFile/stallCheckInterval`` while the wait goes on; when it
    ///     returns `true`, the wait is given up on at once (see ``WriteLock``: a predecessor in the
    ///     queue that does not move).
    /// - Returns: Whether this description now holds `range`; `false` at the deadline or when
    ///   `stalled` said so.
    func lock(
        _ range: LockRange,
        until deadline: ContinuousClock.Instant,
        stalled: (() -> Bool)? = nil
    ) throws(Errno) -> Bool {
        if try descriptor.tryLock(range) { return true }
        guard ContinuousClock.now < deadline else { return false }
        // Count this wait before it starts, so that waits starting together cannot all pass the check.
        guard Self.waits.add(1, ordering: .relaxed).newValue <= Self.waitLimit else {
            Self.waits.subtract(1, ordering: .relaxed)
            return try poll(range, until: deadline, stalled: stalled)
        }
        let wait = RangeWait()
        let syscalls = Syscalls.current
        let start = ThreadStart { [self] in
            defer { Self.waits.subtract(1, ordering: .relaxed) }
            let result = Syscalls.$current.withValue(syscalls) {
                Result { () throws(Errno) in try descriptor.waitForLock(range) }
            }
            if wait.finish(result) { return }
            // The writer gave up on this wait: give back what it got.
            if case .success = result { try? descriptor.unlock(range) }
        }
        guard startThread(start) else {
            Self.waits.subtract(1, ordering: .relaxed)
            return try poll(range, until: deadline, stalled: stalled)
        }
        while true {
            let checkAt = stalled == nil ? deadline : min(deadline, ContinuousClock.now + Self.stallCheckInterval)
            if let result = wait.result(until: checkAt, abandoning: checkAt == deadline) {
                try result.get()
                return true
            }
            if checkAt == deadline { return false }
            if stalled?() == true, wait.abandon() { return false }
        }
    }

    /// How many waits for a range (threads in `F_OFD_SETLKW`) a process may have at once.
    static let waitLimit = 64
    /// How often a wait with a `stalled` check asks it.
    static let stallCheckInterval: Duration = .milliseconds(200)
    private static let waits = Atomic<Int>(0)

    /// Tries `range` every 10 ms until `deadline`, asking `stalled` as often as a wait would:
    /// the fallback when no wait thread can be had.
    private func poll(
        _ range: LockRange,
        until deadline: ContinuousClock.Instant,
        stalled: (() -> Bool)?
    ) throws(Errno) -> Bool {
        var nextCheck = ContinuousClock.now + Self.stallCheckInterval
        while ContinuousClock.now < deadline {
            var request = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            var remaining = timespec()
            while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
            if try descriptor.tryLock(range) { return true }
            if let stalled, ContinuousClock.now >= nextCheck {
                if stalled() { return false }
                nextCheck = ContinuousClock.now + Self.stallCheckInterval
            }
        }
        return false
    }
}

/// One wait for a range: the waiting thread's result, or the writer's decision to give up on it.
private final class RangeWait: Sendable {
    private enum State {
        case waiting
        case finished(Result<Void, Errno>)
        case abandoned
    }

    private let state = Mutex(State.waiting)
    private let done = DispatchSemaphore(value: 0)

    /// Records the wait's result.
    ///
    /// - Returns: `false` when the writer had already given up on this wait.
    func finish(_ result: Result<Void, Errno>) -> Bool {
        let delivered = state.withLock { state in
            guard case .waiting = state else { return false }
            state = .finished(result)
            return true
        }
        if delivered { done.signal() }
        return delivered
    }

    /// The wait's result, or `nil` when it was not there by `deadline`; with `abandoning`, the
    /// wait is then given up on.
    func result(until deadline: ContinuousClock.Instant, abandoning: Bool) -> Result<Void, Errno>? {
        let interval = DispatchTimeInterval(saturating: max(ContinuousClock.now.duration(to: deadline), .zero))
        let timeout: DispatchTime = interval == .never ? .distantFuture : .now() + interval
        let timedOut = done.wait(timeout: timeout) == .timedOut
        return state.withLock { state in
            switch state {
            case .finished(let result):
                return result
            case .waiting:
                precondition(timedOut, "the lock wait signalled without a result")
                if abandoning { state = .abandoned }
                return nil
            case .abandoned:
                preconditionFailure("a lock wait was abandoned twice")
            }
        }
    }

    /// Gives up on the wait.
    ///
    /// - Returns: `false` when the result came first (the caller then takes it with `result`).
    func abandon() -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .abandoned
            return true
        }
    }
}
