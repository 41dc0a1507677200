// vault: blocking work (a wait for the write lock, a key derivation) on a thread of its own,
// so that async callers never hold a thread of Swift's cooperative pool while it blocks.

import Glibc
import VaultFormat

/// What a new thread runs; retained across `pthread_create`.
final class ThreadStart: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Starts a detached thread that runs `start`.
///
/// The corresponding C function is `pthread_create`.
///
/// - Returns: `false` when no thread could be created (the process is at its limit).
func startThread(_ start: ThreadStart) -> Bool {
    let context = Unmanaged.passRetained(start).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let created = pthread_create(
        &thread,
        &attributes,
        { raw in
            Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        },
        context
    )
    guard created == 0 else {
        Unmanaged<ThreadStart>.fromOpaque(context).release()
        return false
    }
    return true
}

/// Runs `body` on a new detached thread and resumes the caller with its result.
///
/// The cooperative pool has one thread per processor: a call that waits up to the lock timeout
/// for another writer, or spends a second in Argon2id, would stop every other task on that
/// thread meanwhile. A thread per call costs about 20 µs, nothing beside either wait.
///
/// Spec: Spec/library-semantics.md (L-ASYNC-1).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        // A new thread starts with no task-local values: carry over the ones VaultIO reads, so
        // that a test's injected faults and KDF counting see the work done there.
        let syscalls = Syscalls.current
        let kdfRuns = KDFRunCounter.current
        let start = ThreadStart {
            let result = Result {
                try Syscalls.$current.withValue(syscalls) {
                    try KDFRunCounter.$current.withValue(kdfRuns, operation: body)
                }
            }
            continuation.resume(with: result)
        }
        if !startThread(start) {
            // No thread to be had (a process at its limit): run here rather than fail the call.
            start.run()
        }
    }
}
