// vault reliability, suite 4: I/O errors at every step of a commit, and a real full disk.

import Foundation
import Glibc
import Synchronization
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 4: I/O errors.
///
/// A dry run records the system calls of one commit (adding a 100 KiB secret to a vault of
/// four items, with writes capped at 32 KiB so that the file takes several `write`s). Then,
/// for the n-th `write`, `fsync` (the temporary file's, then the directory's), `close` and
/// `rename` of that commit, and for EIO, ENOSPC and EINTR, the call fails once, and
/// persistently (EINTR: 50 times in a row, so that a retry loop ends), through
/// `Syscalls.inject`. Checks:
/// - a false success: `write` returned although a step the new bytes' durability depends on
///   (a write, either fsync, the temporary file's close, the rename) failed for good;
/// - on failure: the vault file is byte-for-byte the old one, no temporary file is left,
///   and the next write commits;
/// - on success: the vault holds the new state;
/// - EINTR on `write` and `rename` is retried (the commit succeeds); EINTR on `fsync` and
///   `close` is not retried (documented in `Syscalls.retryingOnInterrupt`) and fails the commit.
/// Then a real full disk: a 2 MiB tmpfs mounted for the test and filled up.
enum IOErrors {
    static let errnos: [(CInt, String)] = [(EIO, "EIO"), (ENOSPC, "ENOSPC"), (EINTR, "EINTR")]

    /// The calls broken in a commit of `format`: those its durability rests on, and the closes and
    /// unlinks around it.
    static func calls(_ format: Format) -> [Syscall] {
        format == .v3 ? [.truncate, .pwriteVault, .datasync, .close, .unlink] : [.write, .fsync, .close, .rename, .unlink]
    }

    static func commit(_ txn: inout VaultTransaction) throws {
        try txn.set(draft("new", secret: fillerSecret(100 * 1024, seed: 9)))
    }

    /// Counts over every format and setup.
    struct Counts {
        var cases = 0, falseSuccesses = 0, changedOnFailure = 0, tempLeft = 0, eintrRetried = 0, failures = 0
        var successes = 0, oldGenerationLeft = 0
    }

    static func run(_ mode: Mode) -> Tally {
        let tally = Tally()
        var counts = Counts()
        var figures: [(String, Any)] = []
        for format in selectedFormats {
            for torn in format == .v3 ? [false, true] : [false] {
                let before = counts.cases
                run(format, torn: torn, tally: tally, counts: &counts)
                figures.append(("\(format == .v3 ? "v3" : "v1_1")\(torn ? "_torn" : "")_cases", counts.cases - before))
            }
        }
        print(
            "  cases \(counts.cases): failed \(counts.failures), succeeded \(counts.successes) (EINTR retried \(counts.eintrRetried)); false successes \(counts.falseSuccesses), vault changed after a reported failure \(counts.changedOnFailure), temporary files left \(counts.tempLeft) (plus \(counts.oldGenerationLeft) old generations left by a failed unlink after the commit, removed by the next writer as documented)"
        )
        var disks: [String] = []
        for format in selectedFormats { disks.append("\(format.rawValue):\(fullDisk(format, tally))") }
        figures += [
            ("cases", counts.cases), ("false_successes", counts.falseSuccesses),
            ("changed_on_failure", counts.changedOnFailure), ("temp_left", counts.tempLeft),
            ("eintr_retried", counts.eintrRetried), ("full_disk", disks.joined(separator: ",")),
        ]
        print(
            "RESULT io-errors \(tally.failures.isEmpty ? "PASS" : "FAIL") "
                + figures.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        )
        return tally
    }

    /// One format's cases; `torn`: the vault starts with a commit torn by a power cut (format 3),
    /// so that the commit first cuts its tail (`truncate`).
    static func run(_ format: Format, torn: Bool, tally: Tally, counts: inout Counts) {
        let setup = makeTemporaryDirectory("io-setup")
        defer { removeTree(setup) }
        let items = (0..<4).map { ("item-\($0)", fillerSecret(3000, seed: UInt64($0))) }
        guard (try? makeVault(in: setup, items: items, format: format)) != nil,
            (try? torn ? tearCommit(setup + "/" + vaultName) : ()) != nil,
            let oldState = try? openState(setup + "/" + vaultName)
        else {
            tally.fail("io errors: setup failed")
            return
        }
        let oldBytes = readBytes(setup + "/" + vaultName)!
        // What a failed commit must leave: for format 3 the old commit (everything up to its end;
        // a failed commit cuts the tail it appended, and a torn commit's tail may go with it).
        let kept = oldBytes.count - oldState.tail
        let setupName = "\(format.label)\(torn ? ", onto a torn commit" : "")"

        // The dry run: which calls one commit makes, in order.
        let trace = Mutex<[Syscall]>([])
        let dry = makeTemporaryDirectory("io-dry")
        copyDirectory(setup, to: dry)
        let newState: VaultState
        do {
            let vault = try Vault(
                path: dry + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            try Syscalls.limitWrites(toAtMost: 32768) {
                try Syscalls.observe({ call in trace.withLock { $0.append(call) } }) {
                    try vault.write { try commit(&$0) }
                }
            }
            newState = try openState(dry + "/" + vaultName)
        } catch {
            tally.fail("io errors: dry run failed: \(error)")
            return
        }
        removeTree(dry)
        let steps = trace.withLock { $0 }
        print("I/O errors, \(setupName): one commit makes \(steps.count) calls: \(steps.map(\.rawValue).joined(separator: " "))")
        if format == .v3 && !(steps.contains(.pwriteVault) && steps.contains(.datasync) && steps.contains(.truncate) == torn) {
            tally.fail("io errors: the format-3 commit did not take the in-place path it was meant to")
        }
        print("  step (n-th call of that kind in the commit)   errno=once/persistent")
        for call in calls(format) {
            let occurrences = steps.indices.filter { steps[$0] == call }
            for (n, position) in occurrences.enumerated() {
                let label = describe(call, n, position: position, in: steps, format: format)
                var rows: [String] = []
                for (errnoValue, errnoName) in errnos {
                    var cells: [String] = []
                    for persistent in [false, true] {
                        counts.cases += 1
                        let work = makeTemporaryDirectory("io-run")
                        defer { removeTree(work) }
                        copyDirectory(setup, to: work)
                        let path = work + "/" + vaultName
                        let times = persistent ? (errnoValue == EINTR ? 50 : 1_000_000) : 1
                        var thrown: (any Error)?
                        do {
                            let vault = try Vault(
                                path: path,
                                credentials: .password(password),
                                configuration: fastConfiguration
                            )
                            try Syscalls.limitWrites(toAtMost: 32768) {
                                try Syscalls.inject(call, errno: errnoValue, after: n, times: times) {
                                    try vault.write { try commit(&$0) }
                                }
                            }
                        } catch {
                            thrown = error
                        }
                        let what = "\(setupName): \(label.name), \(errnoName) \(persistent ? "persistent" : "once")"
                        // Retried on EINTR: the calls safe to repeat (Syscalls.retryingOnInterrupt).
                        let retried = errnoValue == EINTR && [.write, .rename, .pwriteVault, .truncate].contains(call)
                        if !temporaryFiles(in: work).isEmpty {
                            if call == .unlink && thrown == nil {
                                // Documented: the old generation, renamed to a temporary name, stays when its
                                // unlink fails after the commit; the next writer removes it under the lock.
                                counts.oldGenerationLeft += 1
                                let vault = try? Vault(
                                    path: path,
                                    credentials: .password(password),
                                    configuration: fastConfiguration
                                )
                                try? vault?.write { _ in }
                                tally.check(
                                    temporaryFiles(in: work).isEmpty,
                                    "io errors: \(what): the next writer did not remove the old generation"
                                )
                            } else {
                                counts.tempLeft += 1
                                tally.fail("io errors: \(what): temporary file left: \(temporaryFiles(in: work))")
                            }
                        }
                        if let thrown {
                            counts.failures += 1
                            cells.append("fails")
                            let bytes = readBytes(path) ?? []
                            let unchanged =
                                format == .v3
                                ? bytes.count >= kept && bytes.prefix(kept) == oldBytes.prefix(kept)
                                    && (try? openState(path)) == oldState
                                : bytes == oldBytes
                            if !unchanged {
                                counts.changedOnFailure += 1
                                tally.fail("io errors: \(what): write threw \(thrown) but the vault changed")
                            }
                            if retried {
                                tally.fail("io errors: \(what): EINTR was not retried: \(thrown)")
                            }
                            // Nothing is stuck: the next write commits.
                            do {
                                let vault = try Vault(
                                    path: path,
                                    credentials: .password(password),
                                    configuration: fastConfiguration
                                )
                                try vault.write { try commit(&$0) }
                                let next = try openState(path)
                                tally.check(
                                    next.sameContent(as: newState) && !next.note && next.tail == 0,
                                    "io errors: \(what): after the next write the vault is \(next)"
                                )
                            } catch {
                                tally.fail("io errors: \(what): the next write failed: \(error)")
                            }
                        } else {
                            counts.successes += 1
                            if retried { counts.eintrRetried += 1 }
                            cells.append(retried ? "retried" : "succeeds")
                            if label.critical && !retried {
                                counts.falseSuccesses += 1
                                tally.fail(
                                    "io errors: \(what): write reported success although a durability step failed"
                                )
                            }
                            let after = try? openState(path)
                            if !(after?.generation == oldState.generation + 1
                                && after?.sameContent(as: newState) == true && after?.note == false
                                && after?.tail == 0)
                            {
                                tally.fail("io errors: \(what): success but the vault is \(after.map(\.description) ?? "unreadable")")
                            }
                        }
                    }
                    rows.append("\(errnoName)=\(cells[0])/\(cells[1])")
                }
                print(
                    "  " + label.name.padding(toLength: 44, withPad: " ", startingAt: 0) + rows.joined(separator: "  ")
                )
            }
        }
    }

    /// Names the n-th occurrence of `call` in a commit's trace, and says whether durability depends on it.
    static func describe(_ call: Syscall, _ n: Int, position: Int, in steps: [Syscall], format: Format) -> (
        name: String, critical: Bool
    ) {
        if format == .v3 {
            let sync = steps.firstIndex(of: .datasync) ?? steps.count
            switch call {
            case .truncate: return ("truncate the torn commit's tail", true)
            case .pwriteVault: return (n == 0 ? "pwrite: append the commit" : "pwrite: the other slot", true)
            case .datasync: return ("fdatasync", true)
            case .close: return ("close #\(n + 1) (\(position > sync ? "after" : "before") the commit)", false)
            case .unlink: return ("unlink #\(n + 1) (lock file, after the commit)", false)
            default: return ("\(call) #\(n + 1)", false)
            }
        }
        switch call {
        case .write: return ("write #\(n + 1) (temporary file)", true)
        case .fsync: return (n == 0 ? "fsync temporary file" : "fsync directory", true)
        case .rename: return ("rename", true)
        case .close:
            // The temporary file's close is the one right after its fsync.
            let firstFsync = steps.firstIndex(of: .fsync) ?? -1
            if position == firstFsync + 1 { return ("close temporary file", true) }
            // After the commit: the directory (the writer's), the vault reader, the lock file.
            let after = steps.indices.filter { $0 > firstFsync + 1 && steps[$0] == .close }
            let names = ["close directory (after commit)", "close vault reader", "close lock file"]
            if let k = after.firstIndex(of: position), after.count == names.count { return (names[k], false) }
            return ("close #\(n + 1)", false)
        case .unlink: return (n == 0 ? "unlink old generation (after commit)" : "unlink #\(n + 1) (lock file)", false)
        default: return ("\(call) #\(n + 1)", false)
        }
    }

    /// A real full disk: mounts a 2 MiB tmpfs, fills it, attempts a write.
    ///
    /// - Returns: `"ok"`, `"skipped"` (mount not permitted) or `"failed"`.
    static func fullDisk(_ format: Format, _ tally: Tally) -> String {
        let mountPoint = makeTemporaryDirectory("tmpfs")
        defer { rmdir(mountPoint) }
        let mount = Child.spawn(
            ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mountPoint],
            executable: "/bin/mount"
        )
        let mountOutput = mount.readAll()
        guard mount.wait() == 0 else {
            print(
                "  full disk: SKIPPED: mounting a tmpfs is not permitted here (\(mountOutput.trimmingCharacters(in: .whitespacesAndNewlines)))"
            )
            return "skipped"
        }
        defer {
            let umount = Child.spawn([mountPoint], executable: "/bin/umount")
            _ = umount.readAll()
            umount.wait()
        }
        let path = mountPoint + "/" + vaultName
        do {
            try makeVault(in: mountPoint, items: [("item-0", Array("kept".utf8))], format: format)
            let before = readBytes(path)!
            // Fill the file system.
            let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT, 0o600)
            let chunk = [UInt8](repeating: 0x55, count: 4096)
            var filled = 0
            while true {
                let n = write(filler, chunk, chunk.count)
                if n <= 0 { break }
                filled += n
            }
            let fillErrno = errno
            fsync(filler)
            close(filler)
            let vault = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
            var outcome = "failed"
            do {
                try vault.write { try $0.set(draft("big", secret: fillerSecret(256 * 1024, seed: 1))) }
                tally.fail("full disk: a 256 KiB write succeeded on a full file system")
            } catch let error as VaultIOError {
                let unchanged = readBytes(path) == before
                let clean = temporaryFiles(in: mountPoint).isEmpty
                tally.check(unchanged, "full disk: the vault changed")
                tally.check(clean, "full disk: a temporary file was left")
                print(
                    "  full disk (\(format.label)): 2 MiB tmpfs filled (\(filled / 1024) KiB filler, then \(String(cString: strerror(fillErrno)))); write of 256 KiB failed with '\(error)'; vault unchanged: \(unchanged); temporary file left: \(!clean)"
                )
                if unchanged && clean { outcome = "ok" }
            }
            // Free space: the same write now commits.
            unlink(mountPoint + "/filler")
            try vault.write { try $0.set(draft("big", secret: fillerSecret(256 * 1024, seed: 1))) }
            let after = try openState(path)
            tally.check(
                after.items["big"] != nil && after.items["item-0"] != nil,
                "full disk: write after freeing space lost data"
            )
            print("  full disk (\(format.label)): after removing the filler the same write commits: \(after)")
            return outcome
        } catch {
            tally.fail("full disk: unexpected error \(error)")
            return "failed"
        }
    }
}
