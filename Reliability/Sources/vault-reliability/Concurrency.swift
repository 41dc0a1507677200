// vault reliability, suite 5: concurrent writers, readers, a stale writer and a killed lock holder.

import Foundation
import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 5: concurrency.
///
/// - 4 writer processes each make N read-modify-write increments (full: 2,500; quick: 150),
///   each in one `Vault.write`: read `total` and `worker-<w>`, write both back plus one.
///   Final counts must be exact: `total` = 4 N and every `worker-<w>` = N (no lost update).
/// - 2 reader processes run throughout, each read opening the newest generation (header MAC,
///   index AEAD, every record and secret, `verify`) and checking `total` = the sum of the
///   workers' counters within that one snapshot: a torn or unauthenticated file would fail.
/// - A stale writer (an expectation on an item's version taken before another writer changed
///   it) is refused with `conflict`; a write without expectation is rebased on the newest
///   generation (it re-reads under the lock), as `Vault.write` documents.
/// - A child takes the write lock and is SIGKILLed; the time until a waiting writer in the
///   parent holds the lock is measured (OFD locks die with their open file description).
enum Concurrency {
    static let workers = 4

    static func run(_ mode: Mode) -> Tally {
        let tally = Tally()
        let count = mode == .full ? 2500 : 150
        let directory = makeTemporaryDirectory("concurrency")
        defer { removeTree(directory) }
        let path = directory + "/" + vaultName
        do {
            try makeVault(
                in: directory,
                items: [("total", Array("0".utf8))] + (0..<workers).map { ("worker-\($0)", Array("0".utf8)) }
                    + (0..<40).map { ("filler-\($0)", fillerSecret(1000, seed: UInt64($0))) }
            )
        } catch {
            tally.fail("concurrency: setup failed: \(error)")
            return tally
        }
        print("Concurrency: \(workers) writer processes x \(count) increments, 2 reader processes")
        let start = now()
        let readers = (0..<2).map { _ in Child.spawn(["child-reader", directory]) }
        let writers = (0..<workers).map { Child.spawn(["child-increment", directory, String($0), String(count)]) }
        var writerOutput: [String] = []
        for writer in writers {
            writerOutput.append(writer.readAll())
            let status = writer.wait()
            tally.check(status == 0, "concurrency: a writer failed (status \(status)): \(writerOutput.last!)")
        }
        let elapsed = now() - start
        // Stop the readers.
        FileManager.default.createFile(atPath: directory + "/stop", contents: nil)
        var reads = 0, torn = 0, readErrors = 0
        for reader in readers {
            let output = reader.readAll()
            tally.check(reader.wait() == 0, "concurrency: a reader failed: \(output)")
            for line in output.split(separator: "\n") where line.hasPrefix("reads ") {
                let fields = line.split(separator: " ")
                reads += Int(fields[1]) ?? 0
                torn += Int(fields[3]) ?? 0
                readErrors += Int(fields[5]) ?? 0
            }
            for line in output.split(separator: "\n") where line.hasPrefix("error ") {
                tally.fail("concurrency: reader \(line)")
            }
        }
        tally.check(torn == 0, "concurrency: readers saw \(torn) inconsistent snapshots")
        tally.check(readErrors == 0, "concurrency: readers failed \(readErrors) times")
        tally.check(reads > 0, "concurrency: readers read nothing")
        var exact = false
        do {
            let final = try counters(path)
            exact = final.total == workers * count && final.workers.allSatisfy { $0 == count }
            tally.check(exact, "concurrency: final counts \(final) != \(workers * count) / \(count) each")
            print(
                "  final total \(final.total) (expected \(workers * count)), per worker \(final.workers); \(String(format: "%.1f", elapsed)) s"
            )
        } catch {
            tally.fail("concurrency: final vault does not open: \(error)")
        }
        print("  readers: \(reads) snapshots read and verified, \(torn) inconsistent, \(readErrors) errors")

        // A stale writer is refused; a blind one is rebased.
        var staleRefused = false
        do {
            let a = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
            let b = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
            let seen = try a.read { snapshot in try snapshot.index.entries.first { $0.itemID == itemID("total") }!.version }
            try b.write { try $0.set(draft("total", text: "\(workers * count)")) }
            do {
                try a.write { try $0.set(draft("total", text: "stale"), expecting: .version(seen)) }
                tally.fail("concurrency: a stale writer was not refused")
            } catch let error as VaultIOError where error.code == .conflict {
                staleRefused = true
            }
            try a.write { try $0.set(draft("blind", text: "rebased")) }
            let after = try counters(path)
            tally.check(after.total == workers * count, "concurrency: the rebased write lost the other writer's change")
            print(
                "  stale writer (expected version \(seen)) refused with conflict: \(staleRefused); blind write rebased: \(after.total == workers * count)"
            )
        } catch {
            tally.fail("concurrency: stale-writer check failed: \(error)")
        }

        // A killed lock holder is replaced quickly.
        var delays: [Double] = []
        let rounds = mode == .full ? 20 : 5
        for _ in 0..<rounds {
            let holder = Child.spawn(["child-hold-lock", directory])
            var reader = LineReader(fd: holder.output)
            guard reader.next(timeout: 10) == "locked" else {
                tally.fail("concurrency: the lock holder did not start")
                kill(holder.pid, SIGKILL)
                holder.wait()
                continue
            }
            do {
                let vault = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
                let killed = now()
                kill(holder.pid, SIGKILL)
                let acquired = try vault.write { _ in now() }
                delays.append(acquired - killed)
            } catch {
                tally.fail("concurrency: taking the lock after the holder died failed: \(error)")
            }
            holder.wait()
            close(holder.output)
        }
        let worst = delays.max() ?? .infinity
        tally.check(worst < 1.0, "concurrency: a killed lock holder was replaced only after \(worst) s")
        let sorted = delays.sorted()
        let median = sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
        print(
            String(
                format: "  killed lock holder replaced after: median %.1f ms, max %.1f ms (%d rounds)",
                median * 1000,
                worst * 1000,
                delays.count
            )
        )
        printResult(
            "concurrency",
            tally,
            [
                "writers": workers, "increments_each": count, "exact": exact, "reads": reads, "torn": torn,
                "read_errors": readErrors, "stale_refused": staleRefused,
                "lock_takeover_max_ms": String(format: "%.1f", worst * 1000),
            ]
        )
        return tally
    }

    static func counters(_ path: String) throws -> (total: Int, workers: [Int]) {
        let vault = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
        return try vault.read { snapshot in try counters(snapshot) }
    }

    static func counters(_ snapshot: VaultSnapshot) throws -> (total: Int, workers: [Int]) {
        func value(_ name: String) throws -> Int {
            guard let position = try snapshot.position(of: primaryKey(name)) else { return -1 }
            return Int(String(decoding: try snapshot.secret(at: position).copyBytes(), as: UTF8.self)) ?? -1
        }
        return (try value("total"), try (0..<workers).map { try value("worker-\($0)") })
    }

    // MARK: - Children

    static func incrementer(directory: String, worker: Int, count: Int) -> Never {
        do {
            let vault = try Vault(
                path: directory + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            for _ in 0..<count {
                try vault.write { txn in
                    func value(_ name: String) throws -> Int {
                        guard let item = try txn.item(for: primaryKey(name)), let secret = try txn.secret(for: item.id)
                        else { throw VaultIOError(.conflict, reason: "\(name) missing") }
                        return Int(String(decoding: secret.copyBytes(), as: UTF8.self))!
                    }
                    let total = try value("total"), mine = try value("worker-\(worker)")
                    try txn.set(draft("total", text: String(total + 1)))
                    try txn.set(draft("worker-\(worker)", text: String(mine + 1)))
                }
            }
            emitLine("done")
            exit(0)
        } catch {
            emitLine("error \(error)")
            exit(70)
        }
    }

    static func reader(directory: String) -> Never {
        var reads = 0, torn = 0, errors = 0
        do {
            let vault = try Vault(
                path: directory + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            while access(directory + "/stop", F_OK) != 0 {
                do {
                    try vault.read { snapshot in
                        _ = try snapshot.verify()
                        let c = try counters(snapshot)
                        if c.total != c.workers.reduce(0, +) { torn += 1 }
                    }
                    reads += 1
                } catch {
                    errors += 1
                    emitLine("error \(error)")
                }
            }
        } catch {
            emitLine("error \(error)")
            exit(70)
        }
        emitLine("reads \(reads) torn \(torn) errors \(errors)")
        exit(0)
    }

    static func holdLock(directory: String) -> Never {
        do {
            let vault = try Vault(
                path: directory + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            try vault.write { _ in
                emitLine("locked")
                while true { pause() }
            }
        } catch {
            emitLine("error \(error)")
        }
        exit(70)
    }
}
