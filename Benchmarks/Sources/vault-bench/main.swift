// vault-bench: in-process benchmarks of vault, and vaults for the fresh-process ones.
//
//   vault-bench inprocess --sizes 100,1000 --runs 5 --dir DIR --password-file F [--unlock-kdf M/T/P]
//   vault-bench make --n N --kdf M/T/P --password-file F VAULT
//   vault-bench merge --sizes 10000,100000 --changes 100 --runs 11 --dir DIR --password-file F
//   vault-bench profile set|get|get-location|list|index|verify|create --n N --count K [--format 3|2.0] --dir DIR
//       --password-file F
//   vault-bench formats --sizes 10000,100000 --rounds 15 --dir DIR --password-file F
//   vault-bench growth --n 10000 --commits 600 --dir DIR --password-file F
//   vault-bench tail --n 100000 --tail 1048576 --rounds 21 --dir DIR --password-file F
//
// Results are JSON objects, one per line, on stdout (scripts/bench-peers/bench.py reads them).

import Glibc
import VaultFormat

/// Writes one line on standard error.
func printError(_ message: String) {
    let line = "vault-bench: \(message)\n"
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

func kdf(_ text: String) -> KDFParameters {
    let parts = text.split(separator: "/").compactMap { UInt32($0) }
    guard parts.count == 3 else { fail("KDF parameters are memory-KiB/passes/lanes, not '\(text)'") }
    return KDFParameters(memoryKiB: parts[0], iterations: parts[1], lanes: parts[2])
}

func readPassword(_ path: String?) -> [UInt8] {
    guard let path, let file = fopen(path, "rb") else { fail("--password-file is required and must be readable") }
    defer { fclose(file) }
    var bytes = [UInt8]()
    while true {
        let c = fgetc(file)
        if c == EOF { break }
        bytes.append(UInt8(c))
    }
    if bytes.last == 0x0A { bytes.removeLast() }
    return bytes
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "inprocess":
        let sizes = (option("--sizes", in: arguments) ?? "100,1000").split(separator: ",").compactMap { Int($0) }
        let runs = Int(option("--runs", in: arguments) ?? "5") ?? 5
        guard let directory = option("--dir", in: arguments) else { fail("--dir is required") }
        let password = readPassword(option("--password-file", in: arguments))
        let unlockKDF = kdf(option("--unlock-kdf", in: arguments) ?? "65536/3/2")
        try InProcess.unlock(kdf: unlockKDF, runs: max(runs, 7), directory: directory, password: password)
        for n in sizes {
            try InProcess(n: n, runs: runs, directory: directory, password: password).run()
        }
    case "recipients":
        guard let directory = option("--dir", in: arguments) else { fail("--dir is required") }
        let runs = Int(option("--runs", in: arguments) ?? "7") ?? 7
        for n in (option("--sizes", in: arguments) ?? "1000").split(separator: ",").compactMap({ Int($0) }) {
            try RecipientBench.run(
                n: n,
                runs: runs,
                directory: directory,
                password: readPassword(option("--password-file", in: arguments))
            )
        }
    case "profile":
        guard arguments.count > 1, let n = option("--n", in: arguments).flatMap(Int.init),
            let directory = option("--dir", in: arguments)
        else { fail("usage: vault-bench profile OP --n N --count K --dir DIR --password-file F") }
        try Profile.run(
            op: arguments[1],
            n: n,
            count: Int(option("--count", in: arguments) ?? "20") ?? 20,
            directory: directory,
            password: readPassword(option("--password-file", in: arguments)),
            format: BenchFormat(rawValue: option("--format", in: arguments) ?? "3") ?? .v3
        )
    case "merge":
        guard let directory = option("--dir", in: arguments) else { fail("--dir is required") }
        try MergeBench.run(
            sizes: (option("--sizes", in: arguments) ?? "10000,100000").split(separator: ",").compactMap { Int($0) },
            changes: Int(option("--changes", in: arguments) ?? "100") ?? 100,
            runs: Int(option("--runs", in: arguments) ?? "11") ?? 11,
            directory: directory,
            password: readPassword(option("--password-file", in: arguments))
        )
    case "formats":
        // Format 3 beside format 2.0, interleaved (issue 21; FormatBench.swift).
        guard let directory = option("--dir", in: arguments) else { fail("--dir is required") }
        let password = readPassword(option("--password-file", in: arguments))
        let rounds = Int(option("--rounds", in: arguments) ?? "15") ?? 15
        for n in (option("--sizes", in: arguments) ?? "10000,100000").split(separator: ",").compactMap({ Int($0) }) {
            try FormatBench(n: n, rounds: rounds, directory: directory, password: password).run()
        }
    case "growth":
        guard let directory = option("--dir", in: arguments) else { fail("--dir is required") }
        try GrowthBench.run(
            n: Int(option("--n", in: arguments) ?? "10000") ?? 10_000,
            commits: Int(option("--commits", in: arguments) ?? "600") ?? 600,
            directory: directory,
            password: readPassword(option("--password-file", in: arguments))
        )
    case "tail":
        guard let directory = option("--dir", in: arguments) else { fail("--dir is required") }
        try TailBench.run(
            n: Int(option("--n", in: arguments) ?? "100000") ?? 100_000,
            tail: Int(option("--tail", in: arguments) ?? "1048576") ?? 1_048_576,
            rounds: Int(option("--rounds", in: arguments) ?? "21") ?? 21,
            directory: directory,
            password: readPassword(option("--password-file", in: arguments))
        )
    case "make":
        guard let n = option("--n", in: arguments).flatMap(Int.init), let path = arguments.last else {
            fail("usage: vault-bench make --n N --kdf M/T/P --password-file F VAULT")
        }
        let password = readPassword(option("--password-file", in: arguments))
        _ = try InProcess.make(
            at: path,
            n: n,
            kdf: kdf(option("--kdf", in: arguments) ?? "8/1/1"),
            password: password
        )
    default:
        fail("usage: vault-bench inprocess | recipients | profile | merge | formats | growth | tail | make ...")
    }
} catch {
    printError("\(error)")
    exit(1)
}
