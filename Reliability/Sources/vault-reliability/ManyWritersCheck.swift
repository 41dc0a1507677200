// vault reliability, suite 11 (many writers): reading the writers' logs, checking the final vault
// against them, and printing the figures.

import Foundation
import Glibc
import VaultIO

enum ManyCheck {
    /// What the logs and the final vault say.
    struct Figures {
        var acknowledged: [String: Int] = [:]  // by operation: sub, set, inc, cli, helper, agent
        var timeouts: [String: Int] = [:]  // by operation
        var errors: [String: Int] = [:]  // by kind of writer
        var expected: [String: String] = [:]  // "g service account" or "i server account" -> value
        var attempted: [String: Int] = [:]  // by operation, as acknowledged
        var counter: Int?
        var reads = 0, badReads = 0
        var lost = 0, wrong = 0, corrupt = 0
        var generation: UInt64 = 0, items = 0
        var temporaryLeft = 0, temporaryAfterWrite = 0
        /// Names next to the vault after the final write, other than the vault (a lock file, say).
        var besideVault: [String] = []
    }

    /// The kind of writer an operation belongs to.
    static func kind(of op: String) -> String { ["sub", "set", "inc"].contains(op) ? "lib" : op }

    static func check(_ paths: ManyPaths, tool: String, tally: Tally) -> Figures {
        var figures = readLogs(paths, tally: tally)
        figures.temporaryLeft = temporaryFiles(in: paths.directory).count
        do {
            // With the writers' configuration, so that the rollback record they shared is read too.
            let vault = try Vault(
                path: paths.vault,
                credentials: .password(password),
                configuration: paths.configuration
            )
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
                counter.map { acked <= $0 && $0 <= figures.attempted["inc", default: 0] } ?? false,
                "many-writers: counter \(counter.map(String.init) ?? "missing") outside \(acked)...\(figures.attempted["inc", default: 0])"
            )
            // The next write removes what killed writers left.
            try vault.write { try $0.set(draft("final", text: "written after the run")) }
            figures.temporaryAfterWrite = temporaryFiles(in: paths.directory).count
            figures.besideVault = names(in: paths.directory).filter { $0.contains(vaultName) && $0 != vaultName }
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
                case ("try", _): figures.attempted[fields[1], default: 0] += 1
                case ("timeout", _): figures.timeouts[fields[1], default: 0] += 1
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

    /// The write operations of a kind of writer.
    static func operations(of kind: String) -> [String] { kind == "lib" ? ["sub", "set", "inc"] : [kind] }

    /// A library writer's count by operation (`3 sub + 0 set + 1 inc`), another's count.
    static func breakdown(_ counts: [String: Int], _ kind: String) -> String {
        let parts = operations(of: kind).map { (op: $0, count: counts[$0, default: 0]) }
        if kind != "lib" || parts.allSatisfy({ $0.count == 0 }) { return "\(parts.map(\.count).reduce(0, +))" }
        return parts.map { "\($0.count) \($0.op)" }.joined(separator: " + ")
    }

    static func report(_ f: Figures, wall: Double, churn: ManyWriters.Churn, perKind: [String: Int], tally: Tally) {
        func sum(_ counts: [String: Int], _ kind: String) -> Int {
            operations(of: kind).map { counts[$0, default: 0] }.reduce(0, +)
        }
        let header = [
            "kind", "processes", "started", "killed", "in a call", "writes tried", "acknowledged", "lock timeouts",
            "other errors",
        ]
        var rows = [header]
        for kind in ManyWriters.kinds {
            rows.append([
                kind, "\(perKind[kind] ?? 0)", "\(churn.starts[kind] ?? 0)", "\(churn.kills[kind] ?? 0)",
                "\(churn.killedInCall[kind] ?? 0)", "\(sum(f.attempted, kind))", breakdown(f.acknowledged, kind),
                breakdown(f.timeouts, kind), "\(f.errors[kind, default: 0])",
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max()! }
        for row in rows {
            let cells = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            print("  " + cells.dropLast().joined(separator: "  ") + "  " + row.last!)
        }
        print(
            "  counter \(f.counter.map(String.init) ?? "missing"): \(f.acknowledged["inc", default: 0]) increments "
                + "acknowledged, \(f.attempted["inc", default: 0]) tried; agent reads of own writes \(f.reads), "
                + "\(f.badReads) wrong"
        )
        print(
            "  final vault: generation \(f.generation), \(f.items) items, verify (library and vaulttool) "
                + "\(f.corrupt == 0 ? "passed" : "FAILED"); temporary files at the end \(f.temporaryLeft), "
                + "after the next write \(f.temporaryAfterWrite); beside the vault then: "
                + "\(f.besideVault.isEmpty ? "nothing" : f.besideVault.joined(separator: ", ")); "
                + "\(String(format: "%.1f", wall)) s"
        )
        printResult(
            "many-writers",
            tally,
            [
                "writers": perKind.values.reduce(0, +), "started": churn.starts.values.reduce(0, +),
                "kills": churn.kills.values.reduce(0, +), "killed_in_call": churn.killedInCall.values.reduce(0, +),
                "acknowledged": f.acknowledged.values.reduce(0, +), "lib": sum(f.acknowledged, "lib"),
                "cli": sum(f.acknowledged, "cli"), "helper": sum(f.acknowledged, "helper"),
                "agent": sum(f.acknowledged, "agent"), "lost": f.lost, "wrong": f.wrong, "corrupt": f.corrupt,
                "lock_timeouts": f.timeouts.values.reduce(0, +), "errors": f.errors.values.reduce(0, +),
                "counter": f.counter ?? -1, "bad_reads": f.badReads, "wall_s": String(format: "%.1f", wall),
            ]
        )
    }
}
