// vault: an observable count of the key derivations a task runs (for tests of commands that must derive once).

import Synchronization

/// Counts the Argon2id derivations run by the current task, for tests.
///
/// Commands such as a password change or a migration must run each credential's key
/// derivation once; a test proves it by counting, never by timing:
///
/// ```swift
/// let counter = KDFRunCounter()
/// try KDFRunCounter.$current.withValue(counter) { try vault.migrate(options, credentials: credentials) }
/// #expect(counter.runs.filter { $0 == target }.count == 1)
/// ```
///
/// Only the task that installed a counter (and child tasks) is counted, so tests running in
/// parallel do not see each other's derivations. Production code never installs one.
package final class KDFRunCounter: Sendable {
    /// The counter of the current task, if a test installed one.
    @TaskLocal package static var current: KDFRunCounter?

    private let recorded = Mutex<[KDFParameters]>([])

    package init() {}

    /// The parameters of every derivation, in the order they ran.
    package var runs: [KDFParameters] { recorded.withLock { $0 } }

    /// Counts one derivation with `parameters`.
    func record(_ parameters: KDFParameters) {
        recorded.withLock { $0.append(parameters) }
    }
}
