// vault reliability, suite 11 (many writers): reading the writers' logs, checking the final vault
// against them, and printing the figures.

import Foundation
import Glibc
import VaultIO

enum ManyCheck {
    /// What the logs and the final vault say.
    struct Figures {
        var acknowledged: [String: Int] = [:]  // by operation: sub, set, inc, cli, helper, agent
        var timeouts: [String: Int] = [:]
        var errors: [String: Int] = [:]
        var expected: [String: String] = [:]  // "g service account" or "i server account" -> value
        var incrementsTried = 0
        var counter: Int?
        var reads = 0, badReads = 0
        var lost = 0, wrong = 0, corrupt = 0
        var generation: UInt64 = 0, items = 0
        var temporaryLeft = 0, temporaryAfterWrite = 0
    }

    /// The kind of writer an operation belongs to.
    static func kind(of op: String) -> String { ["sub", "set", "inc"].contains(op) ? "lib" : op }

    static func check(_ paths: ManyPaths, tool: String, tally: Tally) -> Figures {
        var figures = readLogs(paths, tally: tally)
        figures.temporaryLeft = temporaryFiles(in: paths.directory).count
        do {
            let vault = try Vault(path: paths.vault, credentials: .password(password), configuration: fastConfiguration)
            let items = try vault.read { snapshot in
                _ = try snapshot.verify()
                figures.generation = snapshot.header.generation
                return try snapshot.items(includeSecrets: true)
            }
            figures.items = items.count
            var held: [String: String] = [:]
            for item in items {
                let a = item.attributes
                let key = a.server.isEmpty ? "g \(a.service) \(a.account)" : "i \(a.server) \(a.account)"
                held[key] = String(decoding: item.secret?.copyBytes() ?? [], as: UTF8.self)
            }
            for (key, value) in figures.expected.sorted(by: { $0.key < $1.key }) {
                guard let found = held[key] else {
                    figures.lost += 1
                    tally.fail("many-writers: acknowledged \(key) is missing")
                    continue
                }
                if found != value {
                    figures.wrong += 1
                    tally.fail("many-writers: acknowledged \(key) holds another value")
                }
            }
            let counter = try Keychain(service: "many-lib", vault: vault).get("counter", as: Int.self)
            figures.counter = counter
            let acked = figures.acknowledged["inc", default: 0]
            tally.check(
                counter.map { acked <= $0 && $0 <= figures.incrementsTried } ?? false,
                "many-writers: counter \(counter.map(String.init) ?? "missing") outside \(acked)...\(figures.incrementsTried)"
            )
            // The next write removes what killed writers left.
            try vault.write { try $0.set(draft("final", text: "written after the run")) }
            figures.temporaryAfterWrite = temporaryFiles(in: paths.directory).count
            tally.check(figures.temporaryAfterWrite == 0, "many-writers: temporary files left after a write")
        } catch {
            figures.corrupt += 1
            tally.fail("many-writers: the final vault does not open or verify: \(error)")
        }
        let verify = ManyProcess.spawn(
            tool,
            ["verify", "--password-file", paths.password, paths.vault],
            environment: ManyProcess.environment(stateHome: paths.state),
            output: paths.work + "/verify.out"
        )
        let rc = ManyProcess.wait(verify)
        if rc != 0 {
            figures.corrupt += 1
            tally.fail("many-writers: vaulttool verify exited \(rc ?? -1): \(firstLine(paths.work + "/verify.out"))")
        }
        return figures
    }

    /// Every complete line of every writer's log.
    static func readLogs(_ paths: ManyPaths, tally: Tally) -> Figures {
        var figures = Figures()
        for name in names(in: paths.logs) {
            for line in AckLog.lines(of: paths.logs + "/" + name) {
                let fields = line.split(separator: " ", maxSplits: 5).map(String.init)
                switch (fields[0], fields.count) {
                case ("ack", 6):
                    figures.acknowledged[fields[1], default: 0] += 1
                    figures.expected["\(fields[2]) \(fields[3]) \(fields[4])"] = fields[5]
                case ("ack", _): figures.acknowledged[fields[1], default: 0] += 1
                case ("try", _): figures.incrementsTried += 1
                case ("timeout", _): figures.timeouts[kind(of: fields[1]), default: 0] += 1
                case ("get", _):
                    figures.reads += 1
                    if fields[1] != "ok" {
                        figures.badReads += 1
                        tally.fail("many-writers: \(name): \(line)")
                    }
                default:
                    figures.errors[kind(of: fields.count > 1 ? fields[1] : "?"), default: 0] += 1
                    tally.fail("many-writers: \(name): \(line)")
                }
            }
        }
        return figures
    }

    static func report(
        _ f: Figures,
        wall: Double,
        starts: [String: Int],
        kills: [String: Int],
        perKind: [String: Int],
        tally: Tally
    ) {
        let header = ["kind", "processes", "started", "killed", "acknowledged", "lock timeouts", "other errors"]
        var rows = [header]
        for kind in ManyWriters.kinds {
            let acked =
                kind == "lib"
                ? ["sub", "set", "inc"].map { "\(f.acknowledged[$0, default: 0]) \($0)" }.joined(separator: " + ")
                : "\(f.acknowledged[kind, default: 0])"
            rows.append([
                kind, "\(perKind[kind] ?? 0)", "\(starts[kind] ?? 0)", "\(kills[kind] ?? 0)", acked,
                "\(f.timeouts[kind, default: 0])", "\(f.errors[kind, default: 0])",
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max()! }
        for row in rows {
            let cells = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            print("  " + cells.dropLast().joined(separator: "  ") + "  " + row.last!)
        }
        print(
            "  counter \(f.counter.map(String.init) ?? "missing"): \(f.acknowledged["inc", default: 0]) increments acknowledged, "
                + "\(f.incrementsTried) attempted; agent reads of own writes \(f.reads), \(f.badReads) wrong"
        )
        print(
            "  final vault: generation \(f.generation), \(f.items) items, verify (library and vaulttool) "
                + "\(f.corrupt == 0 ? "passed" : "FAILED"); temporary files left by killed writers \(f.temporaryLeft), "
                + "after the next write \(f.temporaryAfterWrite); \(String(format: "%.1f", wall)) s"
        )
        let acknowledged = f.acknowledged.values.reduce(0, +)
        printResult(
            "many-writers",
            tally,
            [
                "writers": perKind.values.reduce(0, +), "started": starts.values.reduce(0, +),
                "kills": kills.values.reduce(0, +), "acknowledged": acknowledged,
                "acknowledged_lib": f.acknowledged["sub", default: 0] + f.acknowledged["set", default: 0]
                    + f.acknowledged["inc", default: 0],
                "acknowledged_cli": f.acknowledged["cli", default: 0],
                "acknowledged_helper": f.acknowledged["helper", default: 0],
                "acknowledged_agent": f.acknowledged["agent", default: 0], "lost": f.lost, "wrong": f.wrong,
                "corrupt": f.corrupt, "lock_timeouts": f.timeouts.values.reduce(0, +),
                "errors": f.errors.values.reduce(0, +), "counter": f.counter ?? -1, "bad_reads": f.badReads,
                "wall_s": String(format: "%.1f", wall),
            ]
        )
    }
}
