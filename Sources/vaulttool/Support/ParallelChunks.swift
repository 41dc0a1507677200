// vaulttool: running one job per chunk of a vault's items on every processor.

import Foundation

/// Splits `0..<count` into chunks and runs `body` on each, on every processor, returning the
/// results in chunk order (the first error, in chunk order, is thrown).
///
/// Small counts (under 2,048) or one processor run as one chunk on the calling thread: below
/// that, starting threads costs more than it saves. `body` only reads what it captures; the
/// caller vouches for that by passing an `@unchecked Sendable` box where needed.
enum ParallelChunks {
    static func map<T>(count: Int, _ body: @Sendable (Range<Int>) throws -> T) throws -> [T] {
        let processors = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunkCount = count < 2048 || processors == 1 ? 1 : min(4 * processors, count / 512, 64)
        guard chunkCount > 1 else { return [try body(0..<count)] }
        let chunkSize = (count + chunkCount - 1) / chunkCount
        let results = Results<T>(count: chunkCount)
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let range = chunk * chunkSize..<min(count, (chunk + 1) * chunkSize)
            results.set(chunk, Result { try body(range) })
        }
        return try results.take().map { try $0!.get() }
    }

    /// The outcome of each chunk, in chunk order.
    private final class Results<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<T, any Error>?]

        init(count: Int) { results = Array(repeating: nil, count: count) }

        func set(_ chunk: Int, _ result: Result<T, any Error>) {
            lock.withLock { results[chunk] = result }
        }

        /// The results, moved out (no copy of what the chunks built).
        func take() -> [Result<T, any Error>?] {
            lock.withLock {
                defer { results = [] }
                return results
            }
        }
    }
}

/// Values a chunk job only reads (a snapshot whose records are in memory, immutable keys, options).
struct ReadOnlyShared<Value>: @unchecked Sendable {
    let value: Value
}
