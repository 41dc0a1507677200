// vault reliability, suite 1: a writer that dies (_exit) at each system call of a commit.

import Glibc
import Synchronization
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 1: crash points.
///
/// For each vault size and operation, a dry run on a copy counts the system calls one
/// `Vault.write` makes (through `Syscalls.observe`). Then, for every call k, a forked child
/// opens a fresh copy of the vault and runs the same write with an observer that calls
/// `_exit(86)` just before call k (just after it, for `close`): lock file open, lock, vault
/// open/fstat/pread, temporary create, fchmod, every write, fsync, close, rename, directory
/// fsync, unlink. A last run lets the write return, acknowledges it (exit 0) and exits without
/// any cleanup. After each death the parent opens the vault from scratch and checks that it
/// equals the old state (byte for byte) or the new one (every item and secret), that an
/// acknowledged write is never lost, and that the next writer removes any temporary file left.
enum CrashPoints {
    enum Operation: String, CaseIterable {
        case add, update, delete

        func apply(_ txn: inout VaultTransaction) throws {
            switch self {
            case .add: try txn.set(draft("added", text: "a secret added by the crash-point suite"))
            case .update: try txn.set(draft("item-0", text: "item-0 updated by the crash-point suite"))
            case .delete: try txn.remove(id: itemID("item-0"))
            }
        }
    }

    struct Size {
        let label: String
        let items: [(String, [UInt8])]
    }

    static func sizes(_ mode: Mode) -> [Size] {
        var sizes = [
            Size(label: "0 items", items: []),
            Size(label: "1 item", items: [("item-0", Array("the only secret".utf8))]),
            Size(
                label: "1,000 items",
                items: (0..<1000).map { ("item-\($0)", fillerSecret(32, seed: UInt64($0))) }
            ),
        ]
        if mode == .full {
            sizes.append(
                Size(
                    label: "5 MiB (80 x 64 KiB)",
                    items: (0..<80).map { ("item-\($0)", fillerSecret(65536, seed: UInt64($0))) }
                )
            )
        }
        return sizes
    }

    /// Counts calls for the observer; the child process has one thread, the observer needs `Sendable`.
    final class Counter: Sendable {
        let calls = Mutex<[Syscall]>([])
    }

    static func run(_ mode: Mode) -> Tally {
        let tally = Tally()
        var runs = 0, crashed = 0, acknowledged = 0, sawOld = 0, sawNew = 0, corrupt = 0, lost = 0
        var staleLeft = 0, combinations = 0, pointsTotal = 0
        print("Crash points: _exit at every system call of one Vault.write")
        print("  size                   op      points  old  new  acked  corrupt  lost  temp-left")
        for size in sizes(mode) {
            let setup = makeTemporaryDirectory("crash-setup")
            defer { removeTree(setup) }
            do {
                try makeVault(in: setup, items: size.items)
            } catch {
                tally.fail("crash points: setup of \(size.label) failed: \(error)")
                continue
            }
            let oldBytes = readBytes(setup + "/" + vaultName)!
            guard let oldState = try? openState(setup + "/" + vaultName) else {
                tally.fail("crash points: setup vault does not open")
                continue
            }
            for operation in Operation.allCases {
                if size.items.isEmpty && operation != .add {
                    print(
                        "  \(size.label.padding(toLength: 22, withPad: " ", startingAt: 0)) \(operation.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) n/a (no item to change)"
                    )
                    continue
                }
                combinations += 1
                // Dry run: count the calls and learn the new state.
                let dry = makeTemporaryDirectory("crash-dry")
                copyDirectory(setup, to: dry)
                let counter = Counter()
                let newState: VaultState
                do {
                    let vault = try Vault(
                        path: dry + "/" + vaultName,
                        credentials: .password(password),
                        configuration: fastConfiguration
                    )
                    try Syscalls.observe({ call in counter.calls.withLock { $0.append(call) } }) {
                        try vault.write { try operation.apply(&$0) }
                    }
                    newState = try openState(dry + "/" + vaultName)
                } catch {
                    tally.fail("crash points: dry run \(size.label) \(operation) failed: \(error)")
                    removeTree(dry)
                    continue
                }
                removeTree(dry)
                let calls = counter.calls.withLock { $0 }
                var row = (old: 0, new: 0, acked: 0, corrupt: 0, lost: 0, temp: 0)
                // Points 1...calls.count die at that call; calls.count + 1 returns and acknowledges.
                for point in 1...(calls.count + 1) {
                    runs += 1
                    let work = makeTemporaryDirectory("crash-run")
                    defer { removeTree(work) }
                    copyDirectory(setup, to: work)
                    let path = work + "/" + vaultName
                    let status = runChild(path: path, operation: operation, dieAt: point)
                    let exited = status & 0x7f == 0
                    let code = (status >> 8) & 0xff
                    let label = point <= calls.count ? "\(calls[point - 1]) #\(point)" : "after return"
                    guard exited, code == 0 || code == 86 else {
                        tally.fail("crash points: \(size.label) \(operation) at \(label): child status \(status)")
                        continue
                    }
                    let acked = code == 0
                    if acked { row.acked += 1 } else { crashed += 1 }
                    let left = temporaryFiles(in: work).count
                    if left > 0 { row.temp += 1 }
                    guard let after = try? openState(path) else {
                        row.corrupt += 1
                        tally.fail("crash points: \(size.label) \(operation) at \(label): vault does not open")
                        continue
                    }
                    let isOld = after == oldState && readBytes(path) == oldBytes
                    let isNew = after.generation == oldState.generation + 1 && after.sameContent(as: newState)
                    if acked && !isNew {
                        row.lost += 1
                        tally.fail("crash points: \(size.label) \(operation): acknowledged write lost (\(after))")
                    } else if !isOld && !isNew {
                        row.corrupt += 1
                        tally.fail(
                            "crash points: \(size.label) \(operation) at \(label): neither old nor new (\(after))"
                        )
                    }
                    if isOld { row.old += 1 }
                    if isNew { row.new += 1 }
                    // The next writer removes what the dead one left.
                    do {
                        let vault = try Vault(
                            path: path,
                            credentials: .password(password),
                            configuration: fastConfiguration
                        )
                        try vault.write { _ in }
                        tally.check(
                            temporaryFiles(in: work).isEmpty,
                            "crash points: temporary file survived the next write at \(label)"
                        )
                    } catch {
                        tally.fail("crash points: next write after crash at \(label) failed: \(error)")
                    }
                }
                pointsTotal += calls.count + 1
                sawOld += row.old
                sawNew += row.new
                acknowledged += row.acked
                corrupt += row.corrupt
                lost += row.lost
                staleLeft += row.temp
                let sizeText = size.label.padding(toLength: 22, withPad: " ", startingAt: 0)
                let opText = operation.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
                print(
                    "  \(sizeText) \(opText) \(pad(calls.count + 1, 6)) \(pad(row.old, 4)) \(pad(row.new, 4)) \(pad(row.acked, 6)) \(pad(row.corrupt, 8)) \(pad(row.lost, 5)) \(pad(row.temp, 10))"
                )
                if combinations == 1 {
                    print("  (steps of one commit: \(calls.map(\.rawValue).joined(separator: " ")))")
                }
            }
        }
        printResult(
            "crash-points",
            tally,
            [
                "combinations": combinations, "points": pointsTotal, "runs": runs, "died": crashed,
                "acknowledged": acknowledged, "old": sawOld, "new": sawNew, "corrupt": corrupt, "lost": lost,
                "temp_left_then_removed": staleLeft,
            ]
        )
        return tally
    }

    /// Forks a child that opens the vault and runs the write, dying just before call `dieAt`.
    ///
    /// - Returns: The wait status: exit 86 when it died at the point, 0 when the write returned
    ///   (acknowledged; the child then `_exit`s without cleanup), 70 on an error.
    static func runChild(path: String, operation: Operation, dieAt: Int) -> CInt {
        let pid = fork()
        if pid == 0 {
            let counter = Mutex(0)
            do {
                let vault = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
                try Syscalls.observe({ _ in
                    let n = counter.withLock { count in
                        count += 1
                        return count
                    }
                    if n == dieAt { _exit(86) }
                }) {
                    try vault.write { try operation.apply(&$0) }
                }
                _exit(0)
            } catch {
                _exit(70)
            }
        }
        precondition(pid > 0, "fork failed")
        var status: CInt = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
