// vault-bench: clocks, repeated runs and their summary.

import Glibc

/// Times of one operation over several runs, in seconds.
struct Sample {
    var runs: [Double] = []

    var median: Double {
        guard !runs.isEmpty else { return 0 }
        let sorted = runs.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
    var minimum: Double { runs.min() ?? 0 }
}

/// The monotonic clock, in seconds.
///
/// The corresponding C function is `clock_gettime`.
func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Runs `body` once and returns its wall time in seconds.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

/// One line of results, printed as a JSON object.
struct Result {
    let op: String
    let n: Int
    let sample: Sample
    var extra: [(String, String)] = []

    var json: String {
        let runs = sample.runs.map { format($0) }.joined(separator: ",")
        var fields = [
            "\"store\":\"vault\"", "\"op\":\"\(op)\"", "\"n\":\(n)", "\"median\":\(format(sample.median))",
            "\"min\":\(format(sample.minimum))", "\"runs\":[\(runs)]",
        ]
        fields += extra.map { "\"\($0.0)\":\($0.1)" }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func format(_ value: Double) -> String { String(value) }
}

/// Prints a result line on stdout (the driver reads them) and flushes.
func emit(_ result: Result) {
    print(result.json)
    fflush(nil)
}
