// vault reliability, suite 11: many writers of every kind on one vault at once, SIGKILLed at
// random and restarted; no acknowledged write may be lost and the file must stay sound.

import Foundation
import Glibc
import VaultIO

/// Suite 11: many writers.
///
/// One vault, written at once by library processes (`Keychain` subscripts, `set`, `update` of a
/// shared counter), `vaulttool set --password-file` processes, the git credential helper's
/// `store`, and `vaulttool set`/`get` through a `vaulttool agent --foreground` unlocked for the
/// vault. A timer SIGKILLs a random writer (with the `vaulttool` it runs) and restarts it. Each
/// writer logs the writes it saw acknowledged; at the end the vault must open and verify
/// (library and `vaulttool verify`), hold every acknowledged item with its value, and hold a
/// counter between the acknowledged and the attempted increments. Lock timeouts at the default
/// timeout (5 s) are counted, not failed: L-KC-16 retries and reports them, it does not rule them out.
enum ManyWriters {
    /// A running writer: its kind, its slot, and how often the slot was started.
    struct Writer {
        let kind: String
        let slot: Int
        var incarnation = 0
        var pid: pid_t = 0
        var name: String { "\(kind)\(slot).\(incarnation)" }
    }

    static let kinds = ["lib", "cli", "helper", "agent"]

    /// Writers started and killed, by kind.
    struct Churn {
        var starts: [String: Int] = [:]
        var kills: [String: Int] = [:]
        /// Kills that came while the writer was inside a write call or a `vaulttool` command.
        var killedInCall: [String: Int] = [:]
    }

    static func run(_ mode: Mode, tool: String?, seed: UInt64) -> Tally {
        let tally = Tally()
        guard let tool = tool ?? ProcessInfo.processInfo.environment["VAULTTOOL"], access(tool, X_OK) == 0 else {
            tally.fail("many-writers: no vaulttool (pass --vaulttool <path> or set VAULTTOOL)")
            printResult("many-writers", tally, ["vaulttool": "missing"])
            return tally
        }
        let seconds = Double(option("--seconds") ?? "") ?? (mode == .full ? 180 : 10)
        let perKind = mode == .full ? [3, 3, 2, 2] : [2, 2, 1, 1]
        let paths = ManyPaths(directory: makeTemporaryDirectory("many"))
        defer { removeTree(paths.directory) }
        guard let agent = setUp(paths, tool: tool, tally: tally) else { return tally }
        defer {
            kill(agent, SIGTERM)
            if ManyProcess.wait(agent, timeout: 5) == nil { kill(agent, SIGKILL) }
        }
        var writers = zip(kinds, perKind).flatMap { kind, count in (0..<count).map { Writer(kind: kind, slot: $0) } }
        print(
            "Many writers: \(writers.count) writer processes (\(zip(kinds, perKind).map { "\($0) \($1)" }.joined(separator: ", "))) "
                + "and one agent, \(Int(seconds)) s, a random writer SIGKILLed every 100-400 ms (seed \(seed))"
        )
        let started = now()
        for i in writers.indices { start(&writers[i], paths, tool: tool) }
        var random = SeededRandom(seed: seed)
        let churn = killAtRandom(
            &writers,
            until: started + seconds,
            paths,
            tool: tool,
            random: &random,
            tally: tally
        )
        writeBytes([], to: paths.stop)
        for writer in writers {
            let rc = ManyProcess.wait(writer.pid, timeout: 60)
            if rc == nil { kill(-writer.pid, SIGKILL) }
            tally.check(
                rc == 0,
                "many-writers: \(writer.name) did not stop cleanly (\(rc.map(String.init) ?? "still running"))"
            )
        }
        let wall = now() - started
        let figures = ManyCheck.check(paths, tool: tool, tally: tally)
        ManyCheck.report(
            figures,
            wall: wall,
            churn: churn,
            perKind: Dictionary(uniqueKeysWithValues: zip(kinds, perKind)),
            tally: tally
        )
        return tally
    }

    /// Until `deadline`, every 100-400 ms: SIGKILLs a random writer with its process group
    /// (so the `vaulttool` it runs too) and starts it again; restarts (and fails on) a writer
    /// that exited by itself. Returns how many writers of each kind were started and killed.
    static func killAtRandom(
        _ writers: inout [Writer],
        until deadline: Double,
        _ paths: ManyPaths,
        tool: String,
        random: inout SeededRandom,
        tally: Tally
    ) -> Churn {
        var churn = Churn()
        for writer in writers { churn.starts[writer.kind, default: 0] += 1 }
        var nextKill = now() + 0.1 + Double(random.next() % 300) / 1000
        while now() < deadline {
            for i in writers.indices {
                guard let rc = ManyProcess.wait(writers[i].pid, timeout: 0) else { continue }
                tally.fail(
                    "many-writers: \(writers[i].name) exited by itself (\(rc)): \(driverOutput(paths, writers[i]))"
                )
                start(&writers[i], paths, tool: tool)
                churn.starts[writers[i].kind, default: 0] += 1
            }
            if now() >= nextKill {
                // A random kind, then a random writer of it: every kind is killed, however few.
                let kind = kinds[Int(random.next() % UInt64(kinds.count))]
                let candidates = writers.indices.filter { writers[$0].kind == kind }
                let i = candidates[Int(random.next() % UInt64(candidates.count))]
                kill(-writers[i].pid, SIGKILL)
                _ = ManyProcess.wait(writers[i].pid)
                churn.kills[kind, default: 0] += 1
                // Its log ends in "try": the kill came inside a call (waiting for the lock or committing).
                if AckLog.lines(of: paths.log(writers[i].name)).last?.hasPrefix("try ") == true {
                    churn.killedInCall[kind, default: 0] += 1
                }
                start(&writers[i], paths, tool: tool)
                churn.starts[kind, default: 0] += 1
                nextKill = now() + 0.1 + Double(random.next() % 300) / 1000
            }
            usleep(5_000)
        }
        return churn
    }

    /// Directories, the password file, the vault with its counter, and an unlocked agent.
    /// Returns the agent's process ID.
    static func setUp(_ paths: ManyPaths, tool: String, tally: Tally) -> pid_t? {
        for directory in [paths.logs, paths.work, paths.state, paths.directory + "/agent"] {
            mkdir(directory, 0o700)
        }
        writeBytes(Array(password.utf8), to: paths.password)
        do {
            let vault = try makeVault(in: paths.directory, items: [])
            try Keychain(service: "many-lib", vault: vault).set(0, forKey: "counter")
        } catch {
            tally.fail("many-writers: setup failed: \(error)")
            return nil
        }
        let environment = ManyProcess.environment(stateHome: paths.state, agentSocket: paths.socket)
        let agent = ManyProcess.spawn(
            tool,
            ["agent", "--foreground", "--socket", paths.socket],
            environment: environment,
            output: paths.work + "/agent.out",
            newSession: true
        )
        let deadline = now() + 20
        while now() < deadline {
            let unlock = ManyProcess.spawn(
                tool,
                ["unlock", "--password-file", paths.password, paths.vault],
                environment: environment,
                output: paths.work + "/unlock.out"
            )
            if ManyProcess.wait(unlock) == 0 { return agent }
            usleep(100_000)
        }
        tally.fail("many-writers: the agent did not take the keys: \(firstLine(paths.work + "/unlock.out"))")
        kill(agent, SIGKILL)
        _ = ManyProcess.wait(agent)
        return nil
    }

    /// Starts the next incarnation of a writer, in a process group of its own.
    static func start(_ writer: inout Writer, _ paths: ManyPaths, tool: String) {
        writer.incarnation += 1
        let arguments =
            writer.kind == "lib"
            ? ["child-many-library", paths.directory, writer.name]
            : ["child-many-command", paths.directory, writer.kind, writer.name, tool]
        writer.pid = ManyProcess.spawn(
            selfExecutable,
            arguments,
            environment: ManyProcess.environment(stateHome: paths.state),
            output: paths.work + "/\(writer.name).driver",
            newSession: true
        )
    }

    static func driverOutput(_ paths: ManyPaths, _ writer: Writer) -> String {
        String(decoding: readBytes(paths.work + "/\(writer.name).driver") ?? [], as: UTF8.self)
    }
}
