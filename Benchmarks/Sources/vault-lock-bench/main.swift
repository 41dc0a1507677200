// vault-lock-bench: many writers updating one counter (issue 18): throughput and the wait for the lock.
//
//   vault-lock-bench run --processes P --tasks T (--seconds S | --iterations N) [--dir DIR] [--items N]
//                        [--rollback]
//   vault-lock-bench child ...   (started by `run`, one per process)
//
// `run` creates one vault, starts P copies of itself, each running T tasks that call the async
// `Keychain.update` of one counter in a loop, and prints one JSON object on stdout (a summary on
// stderr). It uses only VaultIO's public API, so that scripts/bench-lock.sh can build it against
// an older revision of the package, whatever that revision's write lock looks like.

import Glibc

/// Writes one line on standard error.
func printError(_ message: String) {
    let line = "vault-lock-bench: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

func fail(_ message: String) -> Never {
    printError(message)
    exit(64)
}

func option(_ name: String, in arguments: [String]) -> String? {
    guard let at = arguments.firstIndex(of: name), at + 1 < arguments.count else { return nil }
    return arguments[at + 1]
}

func intOption(_ name: String, in arguments: [String]) -> Int? {
    guard let text = option(name, in: arguments) else { return nil }
    guard let value = Int(text), value > 0 else { fail("\(name) needs a positive integer, not '\(text)'") }
    return value
}

/// How long each task keeps updating.
func limit(from arguments: [String]) -> Limit {
    switch (option("--seconds", in: arguments).map(Double.init), intOption("--iterations", in: arguments)) {
    case (let seconds??, nil) where seconds > 0: .seconds(seconds)
    case (nil, let iterations?): .iterations(iterations)
    case (nil, nil): .seconds(5)
    default: fail("give one of --seconds S (S > 0) or --iterations N")
    }
}

let usage =
    "usage: vault-lock-bench run --processes P --tasks T (--seconds S | --iterations N) [--dir DIR] "
    + "[--items N] [--rollback]"
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "run":
        let status = try Parent(
            processes: intOption("--processes", in: arguments) ?? 8,
            tasks: intOption("--tasks", in: arguments) ?? 8,
            limit: limit(from: arguments),
            directory: option("--dir", in: arguments),
            items: option("--items", in: arguments).map { Int($0) ?? -1 } ?? 0,
            rollback: arguments.contains("--rollback")
        ).run()
        exit(status)
    case "child":
        guard let path = option("--vault", in: arguments), let out = option("--out", in: arguments),
            let tasks = intOption("--tasks", in: arguments)
        else { fail("child: --vault, --out and --tasks are required") }
        try await Child(
            path: path,
            tasks: tasks,
            limit: limit(from: arguments),
            out: out,
            rollbackDirectory: option("--rollback-dir", in: arguments)
        ).run()
    default:
        fail(usage)
    }
} catch {
    printError("\(error)")
    exit(1)
}
