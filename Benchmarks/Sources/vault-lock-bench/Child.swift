// vault-lock-bench: one writer process: T tasks updating the counter until the limit.

import Glibc
import VaultIO

/// What one task did.
struct TaskResult: Sendable {
    /// Acknowledged increments: (latency from call to return, time from call to the transform
    /// running under the lock, the value the update stored), in nanoseconds.
    var acknowledged: [(latency: UInt64, toTransform: UInt64, value: Int)] = []
    /// Calls that threw `KeychainError.lockTimeout`: the time each took, in nanoseconds.
    var timeouts: [UInt64] = []
    /// Calls that threw anything else.
    var errors = 0
    /// The first few distinct messages of those errors.
    var errorMessages: [String] = []
}

struct Child {
    let path: String
    let tasks: Int
    let limit: Limit
    let out: String
    let rollbackDirectory: String?

    /// Opens the vault, waits for the parent's start, runs the tasks, writes the results to `out`.
    func run() async throws {
        // The default configuration, so the default lock timeout; the rollback record only if asked.
        var configuration = VaultConfiguration()
        configuration.rollbackState = rollbackDirectory.map { .directory($0) } ?? .disabled
        let vault = try await Vault.open(
            path: path,
            credentials: .password(Bench.password),
            configuration: configuration
        )
        let keychain = Keychain(service: Bench.service, vault: vault)

        var byte: UInt8 = 1
        guard write(Bench.readyDescriptor, &byte, 1) == 1 else { fail("child: cannot signal ready: \(errno)") }
        close(Bench.readyDescriptor)
        while read(Bench.goDescriptor, &byte, 1) != 0 {}  // end of file: the parent closed it: go
        close(Bench.goDescriptor)

        let start = nanoseconds()
        let deadline: UInt64? =
            switch limit {
            case .seconds(let seconds): start + UInt64(seconds * 1e9)
            case .iterations: nil
            }
        let iterations: Int? =
            switch limit {
            case .seconds: nil
            case .iterations(let count): count
            }
        let results = await withTaskGroup(of: TaskResult.self) { group in
            for _ in 0..<tasks {
                group.addTask { await Self.loop(keychain, deadline: deadline, iterations: iterations) }
            }
            var results: [TaskResult] = []
            for await result in group { results.append(result) }
            return results
        }
        let end = nanoseconds()
        try save(results, start: start, end: end)
    }

    /// Updates the counter until the deadline or for `iterations` calls.
    private static func loop(_ keychain: Keychain, deadline: UInt64?, iterations: Int?) async -> TaskResult {
        var result = TaskResult()
        var calls = 0
        while deadline.map({ nanoseconds() < $0 }) ?? (calls < iterations!) {
            calls += 1
            let entered = Stamp()
            let begin = nanoseconds()
            do {
                let stored = try await keychain.update(Bench.counter, as: Int.self) { old in
                    entered.set(nanoseconds())
                    return (old ?? 0) + 1
                }
                let end = nanoseconds()
                result.acknowledged.append((end - begin, entered.time &- begin, stored ?? -1))
            } catch .lockTimeout {
                result.timeouts.append(nanoseconds() - begin)
            } catch {
                result.errors += 1
                let message = String(describing: error)
                if result.errorMessages.count < 5 && !result.errorMessages.contains(message) {
                    result.errorMessages.append(message)
                }
            }
        }
        return result
    }

    /// Writes the results as lines of text (see `ChildReport.parse`).
    private func save(_ results: [TaskResult], start: UInt64, end: UInt64) throws {
        var text = "start \(start)\nend \(end)\n"
        for result in results {
            text += "task \(result.acknowledged.count) \(result.timeouts.count) \(result.errors)\n"
            for message in result.errorMessages {
                text += "error " + message.split(whereSeparator: \.isNewline).joined(separator: " ") + "\n"
            }
            for call in result.acknowledged { text += "ok \(call.latency) \(call.toTransform) \(call.value)\n" }
            for time in result.timeouts { text += "timeout \(time)\n" }
        }
        guard let file = fopen(out, "w") else { fail("child: cannot write \(out): \(errno)") }
        fputs(text, file)
        guard fclose(file) == 0 else { fail("child: cannot write \(out): \(errno)") }
    }
}
