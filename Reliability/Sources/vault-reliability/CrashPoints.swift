// vault reliability, suite 1: a writer that dies (_exit) at each system call of a commit.

import Glibc
import Synchronization
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 1: crash points.
///
/// For each scenario (a format, a vault and one operation), a dry run on a copy counts the system
/// calls the operation makes (through `Syscalls.observe`). Then, for every call k, a forked child
/// opens a fresh copy of the vault and runs the same operation with an observer that calls
/// `_exit(86)` just before call k (just after it, for `close`). A last run lets the operation
/// return, acknowledges it (exit 0) and exits without any cleanup.
///
/// Format 1.1 commits copy-on-write: lock, read, create a temporary file, write, fsync, rename,
/// fsync the directory, unlink the old generation. Format 3 commits in place (Spec/format-v3.md
/// §9.1): lock, read, truncate an uncommitted tail, append (`pwriteVault`), write the other slot
/// (`pwriteVault`), one `fdatasync`; and writes the whole file for a creation, a migration
/// (`migrate --to 3`), a rekey, a commit over 1 MiB (R3-WR-2) and a compaction (R3-WR-3). Each
/// scenario's dry run must show the path it is meant to exercise.
///
/// After each death the parent opens the vault from scratch and checks that it holds the old
/// state or the new one (every item and secret, `verify`); an acknowledged operation must be the
/// new state. The old state of a whole-file writer is the old file byte for byte; for a format-3
/// in-place commit, the old file's bytes must all still be there (R3-WR-1: nothing before the old
/// commit's end is written, and the old slot is not touched), with at most an uncommitted tail
/// after them. A process crash keeps the page cache, so a reader never needs to fall back past a
/// torn commit here: the note (R3-SLT-4) must not appear. Then the next writer must succeed with a
/// real change, cut any tail, remove any temporary file, and leave a vault that verifies.
enum CrashPoints {
    /// What the dying process does.
    enum Operation: String {
        case add, update, delete
        /// `rekey` (R3-WR-5: a full rewrite).
        case rekey
        /// A commit whose waste passes both the live bytes and 1 MiB (R3-WR-3).
        case compaction
        /// A commit that appends more than 1 MiB (R3-WR-2).
        case largeCommit = "large"
        /// `CredentialSession.migrate` to format 3 (R3-MIG-1), as `vaulttool migrate --to 3`.
        case migrate
        /// `Vault.create`.
        case create

        func apply(_ txn: inout VaultTransaction) throws {
            switch self {
            case .add: try txn.set(draft("added", text: "a secret added by the crash-point suite"))
            case .update: try txn.set(draft("item-0", text: "item-0 updated by the crash-point suite"))
            case .delete: try txn.remove(id: itemID("item-0"))
            case .rekey: try txn.rekey(RekeyOptions(credentials: [.password(password)]))
            case .compaction: try txn.set(draft("big", secret: fillerSecret(600 * 1024, seed: 3)))
            case .largeCommit: try txn.set(draft("large", secret: fillerSecret(1200 * 1024, seed: 4)))
            case .migrate, .create: preconditionFailure("not a transaction")
            }
        }

        /// Runs the operation on the vault at `path`, whose opening is not counted: `observed`
        /// wraps the part whose system calls are crash points.
        func run(path: String, format: Format, observed: (() throws -> Void) throws -> Void) throws {
            switch self {
            case .create:
                try observed {
                    _ = try Vault.create(at: path, credentials: .password(password), configuration: format.configuration)
                }
            case .migrate:
                let session = try CredentialSession(
                    path: path,
                    credentials: .password(password),
                    configuration: format.configuration
                )
                let options = MigrationOptions(
                    kdf: .exactly(fastConfiguration.kdf),
                    formatVersion: FormatVersion(major: 3, minor: 0)
                )
                try observed { _ = try session.migrate(options, credentials: .password(password)) }
            default:
                let vault = try Vault(path: path, credentials: .password(password), configuration: format.configuration)
                try observed { try vault.write { try apply(&$0) } }
            }
        }
    }

    /// How the operation reaches the file.
    enum Path: String {
        /// Copy-on-write: a temporary file renamed over the vault.
        case whole = "whole file"
        /// Format 3 §9.1: appended bytes and the other slot.
        case inPlace = "in place"
    }

    struct Scenario {
        let format: Format
        let label: String
        let items: [(String, [UInt8])]
        let operation: Operation
        let path: Path
        /// The format the vault is created in, when it is not `format` (a migration's source).
        var setupFormat: Format?
        /// Writes after the creation (a compaction needs waste).
        var setupWrites: [(String, [UInt8])] = []
        /// Format 3: the vault starts with a commit torn by a power cut (its slot on disk, half of
        /// its appended bytes), which readers skip with a note and the commit must write over.
        var torn = false
    }

    static func scenarios(_ mode: Mode, formats: [Format]) -> [Scenario] {
        var sizes: [(String, [(String, [UInt8])])] = [
            ("0 items", []),
            ("1 item", [("item-0", Array("the only secret".utf8))]),
        ]
        if mode == .full {
            sizes.append(("1,000 items", (0..<1000).map { ("item-\($0)", fillerSecret(32, seed: UInt64($0))) }))
            sizes.append(("5 MiB (80 x 64 KiB)", (0..<80).map { ("item-\($0)", fillerSecret(65536, seed: UInt64($0))) }))
        }
        let small = (0..<4).map { ("item-\($0)", fillerSecret(700, seed: UInt64($0))) }
        var result: [Scenario] = []
        for format in formats {
            let commit: Path = format == .v3 ? .inPlace : .whole
            for (label, items) in sizes {
                for operation in [Operation.add, .update, .delete] where !items.isEmpty || operation == .add {
                    result.append(Scenario(format: format, label: label, items: items, operation: operation, path: commit))
                }
            }
            result.append(Scenario(format: format, label: "new vault", items: [], operation: .create, path: .whole))
            result.append(Scenario(format: format, label: "4 items", items: small, operation: .rekey, path: .whole))
            if format == .v3 {
                result.append(
                    Scenario(
                        format: .v3,
                        label: "4 items, from 1.1",
                        items: small,
                        operation: .migrate,
                        path: .whole,
                        setupFormat: .whole
                    )
                )
                var torn = Scenario(format: .v3, label: "4 items, torn commit", items: small, operation: .update, path: .inPlace)
                torn.torn = true
                result.append(torn)
                if mode == .full {
                    result.append(Scenario(format: .v3, label: "4 items", items: small, operation: .largeCommit, path: .whole))
                }
                // 600 KiB live, 1.2 MiB of waste after the commit: past both bounds of R3-WR-3.
                result.append(
                    Scenario(
                        format: .v3,
                        label: "600 KiB, 600 KiB waste",
                        items: small,
                        operation: .compaction,
                        path: .whole,
                        setupWrites: [("big", fillerSecret(600 * 1024, seed: 1)), ("big", fillerSecret(600 * 1024, seed: 2))]
                    )
                )
            }
        }
        return result
    }

    /// Counts calls for the observer; the child process has one thread, the observer needs `Sendable`.
    final class Counter: Sendable {
        let calls = Mutex<[Syscall]>([])
    }

    struct Row {
        var points = 0, old = 0, new = 0, acked = 0, corrupt = 0, lost = 0, leftover = 0, notes = 0
        var nextFailed = 0

        mutating func add(_ other: Row) {
            points += other.points
            old += other.old
            new += other.new
            acked += other.acked
            corrupt += other.corrupt
            lost += other.lost
            leftover += other.leftover
            notes += other.notes
            nextFailed += other.nextFailed
        }
    }

    static func run(_ mode: Mode) -> Tally {
        let tally = Tally()
        var totals: [Format: Row] = [:]
        var combinations: [Format: Int] = [:]
        print("Crash points: _exit at every system call of one operation")
        print(
            "  format  vault                    op          path        points  old  new  acked  corrupt  lost  left  notes"
        )
        var stepsShown: Set<String> = []
        for scenario in scenarios(mode, formats: selectedFormats) {
            guard let row = run(scenario, tally: tally, showSteps: &stepsShown) else { continue }
            totals[scenario.format, default: Row()].add(row)
            combinations[scenario.format, default: 0] += 1
            print(
                "  \(scenario.format.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  "
                    + "\(scenario.label.padding(toLength: 24, withPad: " ", startingAt: 0)) "
                    + "\(scenario.operation.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) "
                    + "\(scenario.path.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) "
                    + "\(pad(row.points, 6)) \(pad(row.old, 4)) \(pad(row.new, 4)) \(pad(row.acked, 6)) "
                    + "\(pad(row.corrupt, 8)) \(pad(row.lost, 5)) \(pad(row.leftover, 5)) \(pad(row.notes, 6))"
            )
        }
        print("  left: a temporary file (whole file) or an uncommitted tail (in place) that the next writer removed")
        var figures: [(String, Any)] = []
        var all = Row()
        for format in Format.allCases {
            guard let row = totals[format] else { continue }
            all.add(row)
            let key = format == .v3 ? "v3" : "v1_1"
            figures += [
                ("\(key)_scenarios", combinations[format] ?? 0), ("\(key)_points", row.points),
                ("\(key)_old", row.old), ("\(key)_new", row.new), ("\(key)_acknowledged", row.acked),
                ("\(key)_left_then_removed", row.leftover),
            ]
        }
        figures += [
            ("corrupt", all.corrupt), ("lost", all.lost), ("notes", all.notes), ("next_write_failed", all.nextFailed),
        ]
        let text = figures.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        print("RESULT crash-points \(tally.failures.isEmpty ? "PASS" : "FAIL") \(text)")
        return tally
    }

    /// Runs one scenario's crash points; `nil` when its setup or dry run failed (already reported).
    static func run(_ scenario: Scenario, tally: Tally, showSteps: inout Set<String>) -> Row? {
        let name = "\(scenario.format.label) \(scenario.label) \(scenario.operation.rawValue)"
        let setup = makeTemporaryDirectory("crash-setup")
        defer { removeTree(setup) }
        let setupPath = setup + "/" + vaultName
        var oldState: VaultState?
        var oldSlot: (index: Int, bytes: [UInt8])?
        if scenario.operation != .create {
            do {
                let vault = try makeVault(
                    in: setup,
                    items: scenario.items,
                    format: scenario.setupFormat ?? scenario.format
                )
                for (item, secret) in scenario.setupWrites { try vault.write { try $0.set(draft(item, secret: secret)) } }
                if scenario.torn { try tearCommit(setupPath) }
                oldState = try openState(setupPath)
                if scenario.torn && !(oldState!.note && oldState!.tail > 0) {
                    tally.fail("crash points: the torn commit of \(name) does not read as one: \(oldState!)")
                    return nil
                }
                let head = try VaultFileReader(path: setupPath).headerBytes()
                if scenario.path == .inPlace { oldSlot = (Int(head[CommitSlotLayout.indexOffset]), Array(head.prefix(512))) }
            } catch {
                tally.fail("crash points: setup of \(name) failed: \(error)")
                return nil
            }
        }
        let oldBytes = readBytes(setupPath)
        let oldCommitted = (oldBytes?.count ?? 0) - (oldState?.tail ?? 0)

        // Dry run: count the calls, learn the new state, and check the path taken.
        let dry = makeTemporaryDirectory("crash-dry")
        defer { removeTree(dry) }
        copyDirectory(setup, to: dry)
        let counter = Counter()
        let newState: VaultState
        do {
            try scenario.operation.run(path: dry + "/" + vaultName, format: scenario.format) { body in
                try Syscalls.observe({ call in counter.calls.withLock { $0.append(call) } }) { try body() }
            }
            newState = try openState(dry + "/" + vaultName)
        } catch {
            tally.fail("crash points: dry run of \(name) failed: \(error)")
            return nil
        }
        let calls = counter.calls.withLock { $0 }
        let tookPath: Path = calls.contains(.rename) ? .whole : .inPlace
        if tookPath != scenario.path || (tookPath == .inPlace) != calls.contains(.pwriteVault) {
            tally.fail("crash points: \(name) was meant to write \(scenario.path.rawValue) and took another path: \(calls)")
            return nil
        }
        if scenario.operation == .migrate, (try? VaultFileReader(path: dry + "/" + vaultName).header().isVersion3) != true {
            tally.fail("crash points: the dry run of \(name) did not leave a format-3 file")
            return nil
        }
        let key = scenario.torn ? "torn" : "\(scenario.format.rawValue) \(scenario.path.rawValue)"
        if !showSteps.contains(key) && ([.add, .create].contains(scenario.operation) && scenario.items.isEmpty || scenario.torn) {
            showSteps.insert(key)
            let what = scenario.torn ? "onto a torn commit" : scenario.path.rawValue
            print("  (\(scenario.format.label), \(scenario.operation.rawValue), \(what): \(calls.map(\.rawValue).joined(separator: " ")))")
        }

        var row = Row()
        // Points 1...calls.count die at that call; calls.count + 1 returns and acknowledges.
        for point in 1...(calls.count + 1) {
            row.points += 1
            let work = makeTemporaryDirectory("crash-run")
            defer { removeTree(work) }
            copyDirectory(setup, to: work)
            let path = work + "/" + vaultName
            let status = runChild(path: path, scenario: scenario, dieAt: point)
            let exited = status & 0x7f == 0
            let code = (status >> 8) & 0xff
            let label = "\(name) at " + (point <= calls.count ? "\(calls[point - 1]) #\(point)" : "the return")
            guard exited, code == 0 || code == 86 else {
                tally.fail("crash points: \(label): child status \(status)")
                continue
            }
            let acked = code == 0
            if acked { row.acked += 1 }
            let bytes = readBytes(path)
            let after: VaultState?
            if bytes == nil && oldBytes == nil {
                after = nil  // creation died before the name was in place: the old state, no vault
            } else {
                do {
                    after = try openState(path)
                } catch {
                    row.corrupt += 1
                    tally.fail("crash points: \(label): the vault does not open: \(error)")
                    continue
                }
            }
            let isNew = after.map { $0.generation == (oldState?.generation ?? 0) + 1 && $0.sameContent(as: newState) } ?? false
            let isOld: Bool
            switch (scenario.path, after, oldState) {
            case (_, nil, nil): isOld = true
            case (.whole, let after?, let old?): isOld = after == old && bytes == oldBytes
            case (.inPlace, let after?, let old?):
                // R3-WR-1: the old commit is still there, byte for byte, with at most a tail after it.
                isOld = after == old && bytes.map { Array($0.prefix(oldCommitted)) } == Array(oldBytes!.prefix(oldCommitted))
            default: isOld = false
            }
            // The note is expected only while the torn commit of the setup is still in its slot.
            if let after, after.note, !(scenario.torn && isOld) {
                row.notes += 1
                tally.fail("crash points: \(label): a process crash left a note (skipped commit): \(after)")
            }
            if let oldSlot, let bytes, let oldBytes {
                let slotRange = oldSlot.index * 512..<oldSlot.index * 512 + 512
                if Array(bytes[slotRange]) != oldSlot.bytes
                    || bytes.count < oldCommitted || bytes[1024..<oldCommitted] != oldBytes[1024..<oldCommitted]
                {
                    tally.fail("crash points: \(label): the old commit's slot or heap bytes were written (R3-WR-1)")
                }
            }
            if acked && !isNew {
                row.lost += 1
                tally.fail("crash points: \(label): acknowledged but the vault is \(after.map(\.description) ?? "missing")")
            } else if !isOld && !isNew {
                row.corrupt += 1
                tally.fail("crash points: \(label): neither old nor new (\(after.map(\.description) ?? "no vault"))")
            }
            if isNew { row.new += 1 } else if isOld { row.old += 1 }
            let left = !temporaryFiles(in: work).isEmpty || (after?.tail ?? 0) > 0
            if left { row.leftover += 1 }
            nextWrite(path: path, after: after, scenario: scenario, label: label, tally: tally, row: &row)
        }
        return row
    }

    /// The next writer: a real change must commit on top of what the crash left, cut any tail and
    /// remove any temporary file, and the result must verify without a note.
    static func nextWrite(
        path: String,
        after: VaultState?,
        scenario: Scenario,
        label: String,
        tally: Tally,
        row: inout Row
    ) {
        let directory = String(path[..<path.lastIndex(of: "/")!])
        do {
            let vault =
                after == nil
                ? try Vault.create(at: path, credentials: .password(password), configuration: scenario.format.configuration)
                : try Vault(path: path, credentials: .password(password), configuration: scenario.format.configuration)
            try vault.write { try $0.set(draft("next", text: "written after the crash")) }
            let state = try openState(path)
            var expected = after?.items ?? [:]
            expected["next"] = nil
            var got = state.items
            let next = got.removeValue(forKey: "next")
            let ok =
                next != nil && got == expected && state.generation == (after?.generation ?? 1) + 1
                && !state.note && state.tail == 0 && temporaryFiles(in: directory).isEmpty
            if !ok {
                row.nextFailed += 1
                tally.fail("crash points: \(label): after the next write the vault is \(state), temporary files \(temporaryFiles(in: directory))")
            }
        } catch {
            row.nextFailed += 1
            tally.fail("crash points: \(label): the next write failed: \(error)")
        }
    }

    /// Forks a child that runs the scenario's operation, dying just before call `dieAt`.
    ///
    /// - Returns: The wait status: exit 86 when it died at the point, 0 when the operation returned
    ///   (acknowledged; the child then `_exit`s without cleanup), 70 on an error.
    static func runChild(path: String, scenario: Scenario, dieAt: Int) -> CInt {
        let pid = fork()
        if pid == 0 {
            let counter = Mutex(0)
            do {
                try scenario.operation.run(path: path, format: scenario.format) { body in
                    try Syscalls.observe({ _ in
                        let n = counter.withLock { count in
                            count += 1
                            return count
                        }
                        if n == dieAt { _exit(86) }
                    }) { try body() }
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

/// Leaves a format-3 vault as a power cut in the middle of its next commit can: the next commit's
/// slot on disk, only the first half of its appended bytes (R3-SLT-3 fails, R3-SLT-4's note).
func tearCommit(_ path: String) throws {
    let directory = makeTemporaryDirectory("tear")
    defer { removeTree(directory) }
    let old = readBytes(path)!
    writeBytes(old, to: directory + "/" + vaultName)
    let vault = try Vault(path: directory + "/" + vaultName, credentials: .password(password), configuration: fastConfiguration)
    try vault.write { try $0.set(draft("torn", secret: fillerSecret(6000, seed: 77))) }
    let new = readBytes(directory + "/" + vaultName)!
    let head = try VaultFileReader(path: directory + "/" + vaultName).headerBytes()
    let slot = Int(head[CommitSlotLayout.indexOffset]) * 512
    var torn = old + new[old.count..<old.count + (new.count - old.count) / 2]
    torn.replaceSubrange(slot..<slot + 512, with: head.prefix(512))
    writeBytes(torn, to: path)
}

/// Where a format-3 slot names its own position (Spec/format-v3.md §4, `slotIndex`).
enum CommitSlotLayout {
    static let indexOffset = 160
}

func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
