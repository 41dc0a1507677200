// vault reliability, suite 2: SIGKILL a committing process at random moments.

import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 2: the kill loop.
///
/// A child process opens the vault and commits in a tight loop; every commit rewrites the
/// item `counter` with the secret `generation=<n>` (n = the generation being written) and
/// changes one of 64 other items. After each `write` returns, the child writes `<n>` to its
/// stdout pipe. The parent waits a random 0-40 ms after the child is ready, sends SIGKILL,
/// drains the pipe (so it knows every acknowledged generation), and opens the vault from
/// scratch: it must open, verify, hold `generation=<header generation>` in `counter`, and its
/// generation must be at least the last acknowledged one. Then a new child starts.
enum KillLoop {
    static func run(_ mode: Mode, kills requested: Int?, seed: UInt64) -> Tally {
        let tally = Tally()
        for format in selectedFormats { run(mode, format: format, kills: requested, seed: seed, tally: tally) }
        return tally
    }

    /// One format's kills. A format-3 commit killed after its append leaves an uncommitted tail
    /// (counted with the temporary files as "inside a commit"); a kill never leaves the note
    /// (R3-SLT-4): the page cache keeps what the killed process wrote.
    static func run(_ mode: Mode, format: Format, kills requested: Int?, seed: UInt64, tally: Tally) {
        let kills = requested ?? (mode == .full ? 2000 : 60)
        let directory = makeTemporaryDirectory("kill")
        defer { removeTree(directory) }
        let path = directory + "/" + vaultName
        do {
            try makeVault(
                in: directory,
                items: [("counter", Array("generation=2".utf8))]
                    + (0..<64).map { ("item-\($0)", fillerSecret(512, seed: UInt64($0))) },
                format: format
            )
        } catch {
            tally.fail("kill loop: setup failed: \(error)")
            return
        }
        var random = SeededRandom(seed: seed)
        var lastAcked: UInt64 = 0
        var corrupt = 0, regressions = 0, diedInCommit = 0, totalAcks = 0, notes = 0, rewrites = 0
        var inode = fileInode(path)
        print("Kill loop, \(format.label): \(kills) SIGKILLs of a committing child")
        for kill in 1...kills {
            let child = Child.spawn(["child-kill-loop", directory])
            // Wait for "ready", then a random moment.
            var reader = LineReader(fd: child.output)
            guard reader.next(timeout: 10) == "ready" else {
                tally.fail("kill loop: child \(kill) did not start")
                Glibc.kill(child.pid, SIGKILL)
                child.wait()
                close(child.output)
                continue
            }
            let delay = Double(random.next() % 40_000) / 1e6
            let deadline = now() + delay
            while let line = reader.next(timeout: max(0, deadline - now())) {
                if let generation = UInt64(line) {
                    lastAcked = max(lastAcked, generation)
                    totalAcks += 1
                }
                if now() >= deadline { break }
            }
            Glibc.kill(child.pid, SIGKILL)
            child.wait()
            // Acknowledgements written before the kill are still in the pipe.
            while let line = reader.next(timeout: 0) {
                if let generation = UInt64(line) {
                    lastAcked = max(lastAcked, generation)
                    totalAcks += 1
                }
            }
            close(child.output)
            var inCommit = !temporaryFiles(in: directory).isEmpty
            if format == .v3 && fileInode(path) != inode {
                inode = fileInode(path)
                rewrites += 1  // a format-3 compaction (a whole-file write) since the last kill
            }
            do {
                let vault = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
                let (generation, counter, state) = try vault.read { snapshot -> (UInt64, String?, VaultState) in
                    let state = try vault_reliability.state(of: snapshot)
                    guard let position = try snapshot.position(of: primaryKey("counter")) else { return (0, nil, state) }
                    let secret = String(decoding: try snapshot.secret(at: position).copyBytes(), as: UTF8.self)
                    return (snapshot.header.generation, secret, state)
                }
                if state.tail > 0 { inCommit = true }
                if state.note {
                    notes += 1
                    tally.fail("kill loop (\(format.label)): kill \(kill): a killed commit left the note (R3-SLT-4)")
                }
                if counter != "generation=\(generation)" {
                    corrupt += 1
                    tally.fail(
                        "kill loop: kill \(kill): counter says \(counter ?? "nothing") at generation \(generation)"
                    )
                }
                if generation < lastAcked {
                    regressions += 1
                    tally.fail("kill loop: kill \(kill): on-disk generation \(generation) < acknowledged \(lastAcked)")
                }
            } catch {
                corrupt += 1
                tally.fail("kill loop: kill \(kill): vault does not open: \(error)")
            }
            if inCommit { diedInCommit += 1 }
            if kill % 250 == 0 { print("  \(kill) kills, last acknowledged generation \(lastAcked)") }
        }
        print(
            "  kills \(kills), acknowledged commits \(totalAcks), last acknowledged generation \(lastAcked), killed inside a commit (temporary file or uncommitted tail left) \(diedInCommit)"
                + (format == .v3 ? ", compactions seen \(rewrites)" : "")
        )
        printResult(
            format == .v3 ? "kill-loop-v3" : "kill-loop",
            tally,
            [
                "kills": kills, "acknowledged": totalAcks, "last_generation": lastAcked,
                "killed_mid_commit": diedInCommit, "compactions": rewrites, "corrupt": corrupt,
                "below_acknowledged": regressions, "notes": notes,
            ]
        )
    }

    static func fileInode(_ path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    /// The child: commit forever, acknowledging each generation on stdout.
    static func child(directory: String) -> Never {
        do {
            let vault = try Vault(
                path: directory + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            emitLine("ready")
            var n = 0
            while true {
                n += 1
                let generation = try vault.write { txn -> UInt64 in
                    try txn.set(draft("counter", text: "generation=\(txn.generation)"))
                    try txn.set(draft("item-\(n % 64)", secret: fillerSecret(512 + n % 300, seed: UInt64(n))))
                    return txn.generation
                }
                emitLine(String(generation))
            }
        } catch {
            emitLine("error \(error)")
            exit(70)
        }
    }
}

/// The primary key of a suite item.
func primaryKey(_ name: String) -> PrimaryKey {
    PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(service: name, account: "reliability"))
}

/// Reads lines from a pipe with a timeout.
struct LineReader {
    let fd: CInt
    var buffer: [UInt8] = []
    var closed = false

    init(fd: CInt) { self.fd = fd }

    /// The next line, or `nil` when none arrives within `timeout` seconds or the pipe closed.
    mutating func next(timeout: Double) -> String? {
        let deadline = now() + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if closed { return nil }
            let remaining = deadline - now()
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, CInt(max(0, remaining * 1000)))
            if ready == -1 && errno == EINTR { continue }
            if ready <= 0 { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n > 0 {
                buffer.append(contentsOf: chunk.prefix(n))
            } else if n == -1 && errno == EINTR {
                continue
            } else {
                closed = true
            }
        }
    }
}
