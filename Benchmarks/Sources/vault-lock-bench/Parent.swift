// vault-lock-bench: the parent: makes the vault, starts the writers together, checks the counter.

import Glibc
import VaultIO

/// One child's results, read back from its file.
struct ChildReport {
    var start: UInt64 = 0
    var end: UInt64 = 0
    /// Acknowledged increments per task.
    var perTask: [Int] = []
    var latencies: [UInt64] = []
    var toTransform: [UInt64] = []
    var values: [Int] = []
    var timeouts: [UInt64] = []
    var errors = 0
    var errorMessages: [String] = []

    /// Reads the lines `Child.save` wrote.
    static func parse(_ path: String) -> ChildReport {
        guard let file = fopen(path, "r") else { fail("cannot read \(path): \(errno)") }
        defer { fclose(file) }
        var report = ChildReport()
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            let text = String(cString: line!).dropLast()  // the newline
            let fields = text.split(separator: " ", maxSplits: 1).map(String.init)
            let rest = fields.count > 1 ? fields[1] : ""
            let numbers = rest.split(separator: " ").compactMap { Int($0) }
            switch fields.first {
            case "ok" where numbers.count == 3:
                report.latencies.append(UInt64(numbers[0]))
                report.toTransform.append(UInt64(numbers[1]))
                report.values.append(numbers[2])
            case "timeout" where numbers.count == 1: report.timeouts.append(UInt64(numbers[0]))
            case "task" where numbers.count == 3:
                report.perTask.append(numbers[0])
                report.errors += numbers[2]
            case "error": report.errorMessages.append(rest)
            case "start" where numbers.count == 1: report.start = UInt64(numbers[0])
            case "end" where numbers.count == 1: report.end = UInt64(numbers[0])
            default: fail("\(path): unexpected line '\(text)'")
            }
        }
        return report
    }
}

struct Parent {
    let processes: Int
    let tasks: Int
    let limit: Limit
    let directory: String?
    let items: Int
    let rollback: Bool

    /// Runs one measurement and prints it. Returns the exit status: 2 when the counter is wrong.
    func run() throws -> Int32 {
        guard items >= 0 else { fail("--items needs a count") }
        var template = Array("/tmp/vault-lock-bench.XXXXXX".utf8CString)
        let scratch = directory ?? template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { if directory == nil { removeTree(scratch) } }
        let path = scratch + "/lock-wait.vault"
        unlink(path)
        let keychain = try makeVault(at: path)
        let rollbackDirectory = rollback ? scratch + "/state" : nil
        let reports = try spawnChildren(vault: path, scratch: scratch, rollbackDirectory: rollbackDirectory)
        let final: Int? = try keychain.get(Bench.counter, as: Int.self)
        return summarize(reports, final: final ?? 0)
    }

    /// Creates the vault (password keyslot, Argon2id 8 KiB/1/1 as vault-bench does), `items`
    /// other items, and the counter at 0.
    private func makeVault(at path: String) throws -> Keychain {
        // The parent creates a throwaway vault with a test KDF; it is not a test process, so say
        // so for this one call instead of printing insecureForTesting's warning. Children open
        // the vault with the default configuration and do not inherit the variable.
        setenv("VAULT_TESTING", "1", 1)
        let configuration = VaultConfiguration.insecureForTesting(
            kdf: KDFParameters(memoryKiB: 8, iterations: 1, lanes: 1)
        )
        unsetenv("VAULT_TESTING")
        let vault = try Vault.create(at: path, credentials: .password(Bench.password), configuration: configuration)
        if items > 0 {
            try vault.write { txn in
                for i in 0..<items {
                    try txn.set(
                        ItemDraft(
                            id: ItemID(random: SystemRandom()),
                            attributes: ItemAttributes(service: "filler.example", account: "account-\(i)"),
                            secret: SecretBytes(bytes: Array("secret-\(i)".utf8))
                        )
                    )
                }
            }
        }
        let keychain = Keychain(service: Bench.service, vault: vault)
        try keychain.set(0, forKey: Bench.counter)
        return keychain
    }

    /// Starts the children, lets them go together once every one has opened the vault, waits for them.
    private func spawnChildren(vault path: String, scratch: String, rollbackDirectory: String?) throws
        -> [ChildReport]
    {
        var ready: [Int32] = [0, 0]
        var go: [Int32] = [0, 0]
        // Close-on-exec (a child that kept the write end of `go` would never see its end of file);
        // `pipe2` is not imported, and no other thread spawns meanwhile.
        guard pipe(&ready) == 0, pipe(&go) == 0 else { fail("pipe: \(errno)") }
        for descriptor in ready + go { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var children: [pid_t] = []
        for index in 0..<processes {
            var arguments = [
                CommandLine.arguments[0], "child", "--vault", path, "--tasks", String(tasks), "--out",
                scratch + "/child-\(index).txt",
            ]
            arguments += limit.arguments
            if let rollbackDirectory { arguments += ["--rollback-dir", rollbackDirectory] }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // dup2 clears close-on-exec on the copy: the child gets exactly these two ends.
            posix_spawn_file_actions_adddup2(&actions, ready[1], Bench.readyDescriptor)
            posix_spawn_file_actions_adddup2(&actions, go[0], Bench.goDescriptor)
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, "/proc/self/exe", &actions, nil, &argv, environ)
            guard status == 0 else { fail("posix_spawn: \(status)") }
            children.append(pid)
        }
        close(ready[1])
        close(go[0])
        var byte: UInt8 = 0
        for _ in 0..<processes {
            guard read(ready[0], &byte, 1) == 1 else {
                for pid in children { kill(pid, SIGTERM) }  // not left to run on their own
                fail("a child exited before opening the vault")
            }
        }
        close(ready[0])
        close(go[1])  // every child's read of `go` returns end of file: they start together
        for pid in children {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED and WEXITSTATUS are macros Swift does not import.
            guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { fail("child \(pid) failed: status \(status)") }
        }
        return (0..<processes).map { ChildReport.parse(scratch + "/child-\($0).txt") }
    }

    /// Prints the JSON line and the summary; returns 2 when the counter disagrees with the acknowledgements.
    private func summarize(_ reports: [ChildReport], final: Int) -> Int32 {
        let latencies = reports.flatMap(\.latencies).sorted()
        let toTransform = reports.flatMap(\.toTransform).sorted()
        // From the transform to the return: encoding, the commit, the unlock; the serial part.
        let afterTransform = reports.flatMap { zip($0.latencies, $0.toTransform).map { $0 &- $1 } }.sorted()
        let values = reports.flatMap(\.values).sorted()
        let timeouts = reports.flatMap(\.timeouts)
        let acknowledged = latencies.count
        let elapsed = Double((reports.map(\.end).max() ?? 0) - (reports.map(\.start).min() ?? 0)) / 1e9
        let perTask = reports.flatMap(\.perTask)
        let perProcess = reports.map { $0.perTask.reduce(0, +) }
        let errors = reports.reduce(0) { $0 + $1.errors }
        var messages: [String] = []
        for message in reports.flatMap(\.errorMessages) where !messages.contains(message) { messages.append(message) }
        // Every acknowledged update stored a different value, and together they are 1...final.
        let counterOK = final == acknowledged
        let valuesOK = values.count == final && values.enumerated().allSatisfy { $0.offset + 1 == $0.element }

        func stats(_ sorted: [UInt64]) -> String {
            guard !sorted.isEmpty else { return "null" }
            func at(_ q: Double) -> Double {
                let rank = Int((q * Double(sorted.count)).rounded(.up))
                return Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1e6
            }
            let mean = Double(sorted.reduce(0, +)) / Double(sorted.count) / 1e6
            return "{\"p50\":\(at(0.5)),\"p90\":\(at(0.9)),\"p99\":\(at(0.99)),\"p999\":\(at(0.999)),"
                + "\"max\":\(Double(sorted.last!) / 1e6),\"mean\":\(mean)}"
        }
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20:
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let limitJSON =
            switch limit {
            case .seconds(let seconds): "\"seconds\":\(seconds)"
            case .iterations(let count): "\"iterations\":\(count)"
            }
        let fields = [
            "\"processes\":\(processes)", "\"tasks\":\(tasks)", limitJSON, "\"items\":\(items)",
            "\"rollback\":\(rollback)", "\"elapsed_s\":\(elapsed)", "\"updates\":\(acknowledged)",
            "\"throughput\":\(Double(acknowledged) / elapsed)", "\"latency_ms\":\(stats(latencies))",
            "\"to_transform_ms\":\(stats(toTransform))", "\"after_transform_ms\":\(stats(afterTransform))",
            "\"timeouts\":\(timeouts.count)",
            "\"timeout_ms\":\(stats(timeouts.sorted()))", "\"errors\":\(errors)",
            "\"error_messages\":[\(messages.map(quoted).joined(separator: ","))]",
            "\"per_task_min\":\(perTask.min() ?? 0)", "\"per_task_max\":\(perTask.max() ?? 0)",
            "\"per_process_min\":\(perProcess.min() ?? 0)", "\"per_process_max\":\(perProcess.max() ?? 0)",
            "\"final_counter\":\(final)", "\"counter_ok\":\(counterOK)", "\"values_ok\":\(valuesOK)",
        ]
        print("{" + fields.joined(separator: ",") + "}")
        fflush(nil)

        func ms(_ sorted: [UInt64], _ q: Double) -> String {
            guard !sorted.isEmpty else { return "-" }
            let rank = Int((q * Double(sorted.count)).rounded(.up))
            return fixed(Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1e6)
        }
        printError(
            "\(processes)x\(tasks): \(acknowledged) updates in \(fixed(elapsed)) s = "
                + "\(fixed(Double(acknowledged) / elapsed, 0))/s; latency p50 \(ms(latencies, 0.5)) "
                + "p99 \(ms(latencies, 0.99)) max \(ms(latencies, 1)) ms; timeouts \(timeouts.count), "
                + "other errors \(errors); updates per task \(perTask.min() ?? 0)-\(perTask.max() ?? 0)"
        )
        for message in messages { printError("error: \(message)") }
        guard counterOK && valuesOK else {
            printError(
                "COUNTER MISMATCH: the counter is \(final) after \(acknowledged) acknowledged increments"
                    + (valuesOK ? "" : "; the values the updates returned are not 1...\(final), each once")
            )
            return 2
        }
        return 0
    }
}

/// `value` with `digits` digits after the point (no Foundation for `String(format:)`).
private func fixed(_ value: Double, _ digits: Int = 2) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = String(scaled / Int(scale))
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return sign + whole }
    let fraction = String(scaled % Int(scale))
    return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
}

/// Removes a scratch directory and what the benchmark put in it (files, and the `state` directory).
private func removeTree(_ path: String) {
    guard let directory = opendir(path) else { return }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) {
            String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
        }
        guard name != "." && name != ".." else { continue }
        let child = path + "/" + name
        if unlink(child) != 0 && errno == EISDIR { removeTree(child) }
    }
    closedir(directory)
    rmdir(path)
}
