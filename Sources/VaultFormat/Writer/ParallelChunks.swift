// vault: one job per chunk of a vault's records, on every processor.

import Dispatch
import Glibc

/// Splits `0..<count` into chunks and runs a job on each, on every processor.
///
/// Used wherever every record of a large vault is opened: a rekey reseals them, a scan reads
/// them. Under 2,048 records, or on one processor, there is one chunk on the calling thread:
/// below that, starting threads costs more than it saves. Otherwise four chunks per processor
/// (at least 512 records each, at most 64 chunks), so that a thread the scheduler preempts on a
/// busy machine does not hold up the others for long.
package enum ParallelChunks {
    /// The chunks of `0..<count`, in order.
    package static func ranges(count: Int) -> [Range<Int>] {
        let processors = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let chunkCount = count < 2048 || processors == 1 ? 1 : max(1, min(4 * processors, count / 512, 64))
        let chunkSize = max(1, (count + chunkCount - 1) / chunkCount)
        return (0..<chunkCount).map { chunk in chunk * chunkSize..<min(count, (chunk + 1) * chunkSize) }
    }

    /// Runs `body` on each chunk of `0..<count` and returns the results in chunk order.
    ///
    /// `body` only reads what it captures. The first error, in chunk order, is thrown.
    package static func map<T, E: Error>(
        count: Int,
        _ body: @Sendable (Range<Int>) throws(E) -> T
    ) throws(E) -> [T] {
        let ranges = ranges(count: count)
        guard ranges.count > 1 else { return [try body(0..<count)] }
        let results = Results<T, E>(count: ranges.count)
        DispatchQueue.concurrentPerform(iterations: ranges.count) { chunk in
            results.set(chunk, Result { () throws(E) in try body(ranges[chunk]) })
        }
        var out: [T] = []
        out.reserveCapacity(ranges.count)
        for result in results.take() { out.append(try result!.get()) }
        return out
    }

    /// The outcome of each chunk, in chunk order. Each chunk writes only its own slot, and
    /// `concurrentPerform` returns after every chunk ended, so the slots need no lock.
    private final class Results<T, E: Error>: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<Result<T, E>?>

        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: nil)
        }

        deinit {
            slots.deinitialize()
            slots.deallocate()
        }

        func set(_ chunk: Int, _ result: Result<T, E>) {
            slots[chunk] = result
        }

        /// The results, moved out (no copy of what the chunks built).
        func take() -> [Result<T, E>?] {
            (0..<slots.count).map { chunk in
                defer { slots[chunk] = nil }
                return slots[chunk]
            }
        }
    }
}
