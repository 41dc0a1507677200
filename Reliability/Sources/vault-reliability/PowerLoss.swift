// vault reliability, suite 3: power loss, simulated from a recorded run.

import Foundation
import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// Suite 3: power-loss simulation, in the manner of SQLite's crash-test VFS.
///
/// **Record.** A child runs a series of commits (adds, updates, deletes; secrets of 16 B to
/// 40 KiB; every `write` capped at 8 KiB so that a file takes several writes) under the
/// LD_PRELOAD shim `Reliability/shim/vault_shim.c`, which logs every open, write (with its
/// bytes and offset), fsync, close, rename (with its `renameat2` flags), unlink and link made
/// in the vault's directory, and a MARK after each commit the child saw acknowledged.
///
/// **Model of durability** (what survives a power cut at a crash point):
/// - `fsync(file)` makes that file's data and size durable, not its name.
/// - `fsync(directory)` makes the directory's entries durable: every create, rename, unlink
///   and link done in it so far.
/// - Anything else is volatile. File data not yet fsynced survives per page, each page
///   independently: applied, dropped (the old bytes, or zeros past the old end), or garbled
///   (random bytes), at 4 KiB or 512-byte granularity. Directory operations not yet made
///   durable survive as an ordered prefix (any length, from none to all), each one whole,
///   as a journaling file system replays its metadata (ext4, XFS, btrfs): no half-renames
///   and no reordering of one directory's operations.
///
/// **Replay.** For each crash point (a position in the log) and each of 10 damage variants
/// (0: everything volatile survives, like a process crash; 1: nothing volatile survives;
/// 2-9: seeded random mixes), the surviving directory is built, written to a scratch folder
/// and opened with `Vault`. The vault file must be, byte for byte, either the last
/// acknowledged generation or the one being committed at the crash point; an older
/// generation is a lost acknowledged write, anything else is corruption. The next writer
/// must then remove any leftover temporary file.
enum PowerLoss {
    static func run(_ mode: Mode, shim: String) -> Tally {
        let tally = Tally()
        for format in selectedFormats { run(mode, format: format, shim: shim, tally: tally) }
        return tally
    }

    /// Records one run of `format`'s commits and replays it, with the two self-test mutants.
    static func run(_ mode: Mode, format: Format, shim: String, tally: Tally) {
        let directory = makeTemporaryDirectory("power")
        let log = makeTemporaryDirectory("power-log") + "/ops.log"
        defer {
            removeTree(directory)
            removeTree(String(log[..<log.lastIndex(of: "/")!]))
        }
        do {
            try makeVault(
                in: directory,
                items: (0..<8).map { ("item-\($0)", fillerSecret(2000, seed: UInt64($0))) },
                format: format
            )
        } catch {
            tally.fail("power loss: setup failed: \(error)")
            return
        }
        var initial: [String: [UInt8]] = [:]
        for name in names(in: directory) { initial[name] = readBytes(directory + "/" + name) }
        let child = Child.spawn(
            ["child-power-loss", directory, mode == .full ? "--full" : "--quick", "--format", format.rawValue],
            environment: ["LD_PRELOAD": shim, "VAULT_SHIM_DIR": directory, "VAULT_SHIM_LOG": log]
        )
        let output = child.readAll()
        let status = child.wait()
        guard status == 0, output.contains("done") else {
            tally.fail("power loss: recording child failed (status \(status)): \(output)")
            return
        }
        guard let logBytes = readBytes(log), let ops = parse(logBytes) else {
            tally.fail("power loss: the shim wrote no readable log (is LD_PRELOAD working?)")
            return
        }
        let suite = format == .v3 ? "power-loss-v3" : "power-loss"
        if format == .v3 && !ops.contains(where: { if case .rename = $0 { true } else { false } }) {
            tally.fail("power loss: the format-3 recording holds no compaction (no whole-file write)")
        }
        print("Power loss, \(format.label):")
        let result = replay(mode, ops: ops, initial: initial, tally: tally, label: suite)
        // Self-test: the same run without the file fsyncs (fdatasync included), or without the
        // directory fsyncs, must be caught (corrupt, or an acknowledged commit lost).
        for mutant in ["file", "directory"] {
            let quiet = Tally()
            quiet.quiet = true
            var descriptors: [Int32: String] = [:]
            let mutated = ops.filter { op in
                switch op {
                case .open(let fd, let name, _): descriptors[fd] = name
                case .fsync(let fd): return (descriptors[fd] == "") != (mutant == "directory")
                default: break
                }
                return true
            }
            print("  self-test: the same run without \(mutant) fsyncs:")
            _ = replay(mode, ops: mutated, initial: initial, tally: quiet, label: "\(suite)-without-\(mutant)-fsync")
            result.check(!quiet.failures.isEmpty, "power loss (\(format.label)): removing the \(mutant) fsyncs went unnoticed")
        }
    }

    // MARK: - The recorded child

    static func child(directory: String, mode: Mode, format: Format) -> Never {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "vault_shim_mark") else {
            emitLine("error: vault_shim_mark not found: run under the shim")
            exit(70)
        }
        typealias Mark = @convention(c) (Int64) -> Void
        let mark = unsafeBitCast(symbol, to: Mark.self)
        var random = SeededRandom(seed: 3)
        // Format 3 commits in place until the waste passes both the live bytes and 1 MiB (R3-WR-3):
        // larger secrets, and commits go on until the run holds compactions (whole-file writes, a
        // new inode under the vault's name) too.
        let commits = format == .v3 ? (mode == .full ? 120 : 40) : (mode == .full ? 60 : 14)
        let compactions = format == .v3 ? (mode == .full ? 3 : 1) : 0
        let sizes = format == .v3 ? [16, 700, 5000, 40000, 250_000] : [16, 700, 5000, 40000]
        func inode() -> UInt64 {
            var info = stat()
            return stat(directory + "/" + vaultName, &info) == 0 ? UInt64(info.st_ino) : 0
        }
        do {
            let vault = try Vault(
                path: directory + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            var seen = (inode: inode(), compactions: 0)
            var n = 0
            // After the last compaction wanted, a quarter of the commits more, so that crash points
            // fall after it too.
            var after = 0
            while n < 4 * commits && (n < commits || seen.compactions < compactions || after < commits / 4) {
                defer {
                    n += 1
                    if seen.compactions >= compactions { after += 1 }
                }
                let generation = try Syscalls.limitWrites(toAtMost: 8192) {
                    try vault.write { txn -> UInt64 in
                        let target = "item-\(random.next() % 12)"
                        switch random.next() % 4 {
                        case 0: try txn.remove(id: itemID(target))
                        default:
                            let size = sizes[Int(random.next() % UInt64(sizes.count))]
                            try txn.set(draft(target, secret: fillerSecret(size, seed: UInt64(n))))
                        }
                        try txn.set(draft("counter", text: "generation=\(txn.generation)"))
                        return txn.generation
                    }
                }
                mark(Int64(generation))
                if inode() != seen.inode { seen = (inode(), seen.compactions + 1) }
            }
            emitLine("done")
            exit(0)
        } catch {
            emitLine("error \(error)")
            exit(70)
        }
    }

    // MARK: - The log

    enum Op {
        case open(fd: Int32, name: String, flags: Int32)
        case write(fd: Int32, offset: Int, bytes: [UInt8])
        case fsync(fd: Int32)
        case close(fd: Int32)
        case rename(from: String, to: String, flags: UInt32)
        case unlink(String)
        case link(from: String, to: String)
        case mark(Int64)
        case truncate(fd: Int32, length: Int)

        var name: String {
            switch self {
            case .open: "open"
            case .write: "write"
            case .fsync: "fsync"
            case .close: "close"
            case .rename: "rename"
            case .unlink: "unlink"
            case .link: "link"
            case .mark: "ack"
            case .truncate: "truncate"
            }
        }
    }

    static func parse(_ bytes: [UInt8]) -> [Op]? {
        var ops: [Op] = []
        var at = 0
        func int<T: FixedWidthInteger>(_: T.Type) -> T {
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[at..<at + MemoryLayout<T>.size]) }
            at += MemoryLayout<T>.size
            return value
        }
        while at + 40 <= bytes.count {
            let op = int(UInt32.self)
            let fd = int(Int32.self)
            let a = int(Int64.self)
            _ = int(Int64.self)
            let flags = int(UInt32.self)
            let l1 = Int(int(UInt32.self)), l2 = Int(int(UInt32.self)), l3 = Int(int(UInt32.self))
            guard at + l1 + l2 + l3 <= bytes.count else { return nil }
            let n1 = String(decoding: bytes[at..<at + l1], as: UTF8.self)
            let n2 = String(decoding: bytes[at + l1..<at + l1 + l2], as: UTF8.self)
            let data = Array(bytes[at + l1 + l2..<at + l1 + l2 + l3])
            at += l1 + l2 + l3
            switch op {
            case 1: ops.append(.open(fd: fd, name: n1, flags: Int32(bitPattern: flags)))
            case 2: ops.append(.write(fd: fd, offset: Int(a), bytes: data))
            case 3: ops.append(.fsync(fd: fd))
            case 4: ops.append(.close(fd: fd))
            case 5: ops.append(.rename(from: n1, to: n2, flags: flags))
            case 6: ops.append(.unlink(n1))
            case 7: ops.append(.link(from: n1, to: n2))
            case 8: ops.append(.mark(a))
            case 9: ops.append(.truncate(fd: fd, length: Int(a)))
            default: return nil
            }
        }
        return at == bytes.count && !ops.isEmpty ? ops : nil
    }

    // MARK: - The file-system model

    /// A change to a file's data or size not yet made durable.
    enum Pending {
        case write(offset: Int, bytes: [UInt8])
        case truncate(Int)
    }

    final class Inode {
        var durable: [UInt8]
        var current: [UInt8]
        var pending: [Pending] = []
        init(_ bytes: [UInt8]) {
            durable = bytes
            current = bytes
        }
    }

    enum DirectoryOp {
        case create(String, Int)
        case rename(String, String, UInt32)
        case unlink(String)
        case link(String, String)
    }

    struct Model {
        var inodes: [Inode] = []
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        var pendingDirectory: [DirectoryOp] = []
        var descriptors: [Int32: Int?] = [:]  // nil: the directory

        init(_ initial: [String: [UInt8]]) {
            for (name, bytes) in initial {
                inodes.append(Inode(bytes))
                names[name] = inodes.count - 1
            }
            durableNames = names
        }

        mutating func apply(_ op: Op) {
            switch op {
            case .open(let fd, let name, let flags):
                if name.isEmpty {
                    descriptors[fd] = .some(nil)
                    return
                }
                if names[name] == nil && flags & O_CREAT != 0 {
                    inodes.append(Inode([]))
                    names[name] = inodes.count - 1
                    pendingDirectory.append(.create(name, inodes.count - 1))
                }
                descriptors[fd] = names[name]
            case .write(let fd, let offset, let bytes):
                guard let inode = descriptors[fd] ?? nil else { return }
                Self.put(bytes, at: offset, into: &inodes[inode].current)
                inodes[inode].pending.append(.write(offset: offset, bytes: bytes))
            case .truncate(let fd, let length):
                guard let inode = descriptors[fd] ?? nil else { return }
                Self.truncate(&inodes[inode].current, to: length)
                inodes[inode].pending.append(.truncate(length))
            case .fsync(let fd):
                guard let entry = descriptors[fd] else { return }
                if let inode = entry {
                    inodes[inode].durable = inodes[inode].current
                    inodes[inode].pending = []
                } else {
                    durableNames = names
                    pendingDirectory = []
                }
            case .close(let fd):
                descriptors[fd] = nil
            case .rename(let from, let to, let flags):
                Self.rename(from, to, flags, in: &names)
                pendingDirectory.append(.rename(from, to, flags))
            case .unlink(let name):
                names[name] = nil
                pendingDirectory.append(.unlink(name))
            case .link(let from, let to):
                names[to] = names[from]
                pendingDirectory.append(.link(from, to))
            case .mark:
                break
            }
        }

        static func rename(_ from: String, _ to: String, _ flags: UInt32, in names: inout [String: Int]) {
            if flags & 2 != 0 {  // RENAME_EXCHANGE
                let a = names[from], b = names[to]
                names[from] = b
                names[to] = a
            } else {
                names[to] = names[from]
                names[from] = nil
            }
        }

        static func truncate(_ file: inout [UInt8], to length: Int) {
            if file.count > length {
                file.removeSubrange(length...)
            } else {
                file.append(contentsOf: [UInt8](repeating: 0, count: length - file.count))
            }
        }

        static func put(_ bytes: [UInt8], at offset: Int, into file: inout [UInt8]) {
            if file.count < offset + bytes.count {
                file.append(contentsOf: [UInt8](repeating: 0, count: offset + bytes.count - file.count))
            }
            file.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        }

        /// The directory after a power cut now, under damage `variant`.
        func crash(variant: Int, random: inout SeededRandom) -> [String: [UInt8]] {
            var surviving = durableNames
            let keep: Int
            switch variant {
            case 0: keep = pendingDirectory.count
            case 1: keep = 0
            default: keep = Int(random.next() % UInt64(pendingDirectory.count + 1))
            }
            for op in pendingDirectory.prefix(keep) {
                switch op {
                case .create(let name, let inode): surviving[name] = inode
                case .rename(let from, let to, let flags): Self.rename(from, to, flags, in: &surviving)
                case .unlink(let name): surviving[name] = nil
                case .link(let from, let to): surviving[to] = surviving[from]
                }
            }
            let page = variant % 2 == 0 ? 4096 : 512
            var files: [String: [UInt8]] = [:]
            for (name, index) in surviving {
                let inode = inodes[index]
                var bytes = inode.durable
                for change in inode.pending {
                    guard case .write(let offset, let data) = change else {
                        // A size change not yet made durable: kept or lost as a whole.
                        if case .truncate(let length) = change,
                            variant == 0 || (variant > 1 && random.next() % 2 == 0)
                        {
                            Self.truncate(&bytes, to: length)
                        }
                        continue
                    }
                    let write = (offset: offset, bytes: data)
                    var start = write.offset
                    let end = write.offset + write.bytes.count
                    while start < end {
                        let stop = min(end, (start / page + 1) * page)
                        let chunk = Array(write.bytes[(start - write.offset)..<(stop - write.offset)])
                        let roll = variant == 0 ? 0 : variant == 1 ? 99 : random.next() % 10
                        if roll < 4 {
                            Self.put(chunk, at: start, into: &bytes)  // applied
                        } else if roll < 7 {
                            // dropped
                        } else {
                            Self.put(
                                chunk.map { _ in UInt8(truncatingIfNeeded: random.next()) },
                                at: start,
                                into: &bytes
                            )
                        }
                        start = stop
                    }
                }
                files[name] = bytes
            }
            return files
        }
    }

    // MARK: - Replay

    /// The state of a vault file held in memory (written to `scratch` to be opened); `nil` when it
    /// does not open.
    static func state(of bytes: [UInt8], scratch: String) -> VaultState? {
        let directory = makeTemporaryDirectory("power-state")
        defer { removeTree(directory) }
        writeBytes(bytes, to: directory + "/" + vaultName)
        return try? openState(directory + "/" + vaultName)
    }

    static func replay(
        _ mode: Mode,
        ops: [Op],
        initial: [String: [UInt8]],
        tally: Tally,
        label suite: String = "power-loss"
    ) -> Tally {
        // Pass 1: the vault's bytes and state at each acknowledgement.
        var model = Model(initial)
        var generations: [[UInt8]] = [initial[vaultName]!]
        var counts: [String: Int] = [:]
        for op in ops {
            model.apply(op)
            counts[op.name, default: 0] += 1
            if case .mark = op { generations.append(model.inodes[model.names[vaultName]!].current) }
        }
        let scratch = makeTemporaryDirectory("power-replay")
        defer { removeTree(scratch) }
        let states = generations.map { state(of: $0, scratch: scratch) }
        if let bad = states.firstIndex(where: { $0 == nil }) {
            tally.fail("power loss: acknowledged generation \(bad) of the recording does not open")
            return tally
        }
        let wanted = mode == .full ? 500 : 60
        let points = Set((0..<wanted).map { $0 * ops.count / wanted })
        let variants = 10
        // Format 3 writes the vault in place; a rename of a temporary file over it is a whole-file
        // write (creation, compaction).
        let renames = ops.filter { if case .rename = $0 { true } else { false } }.count
        print("  \(ops.count) recorded operations, \(generations.count - 1) acknowledged commits (\(renames) of them renamed a new file in)")
        print(
            "  operations: " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        )
        // Pass 2: crash at each chosen point.
        model = Model(initial)
        var acknowledged = 0
        var outcomes = (old: 0, new: 0, corrupt: 0, lost: 0, tempLeft: 0, exact: 0, notes: 0, tails: 0)
        var cases = 0
        for (index, op) in ops.enumerated() {
            // A self-test mutant is caught at its first failure; the rest of its replay adds nothing.
            if tally.quiet && !tally.failures.isEmpty { break }
            if points.contains(index) {
                for variant in 0..<variants {
                    cases += 1
                    var random = SeededRandom(seed: UInt64(index * 100 + variant))
                    let files = model.crash(variant: variant, random: &random)
                    let directory = scratch + "/\(index)-\(variant)"
                    mkdir(directory, 0o700)
                    defer { removeTree(directory) }
                    for (name, bytes) in files { writeBytes(bytes, to: directory + "/" + name) }
                    let label = "point \(index) (after \(acknowledged) acks) variant \(variant)"
                    guard let vault = files[vaultName] else {
                        outcomes.corrupt += 1
                        tally.fail("power loss: \(label): no vault file survived")
                        continue
                    }
                    // The file is the last acknowledged generation or the one being committed: byte for
                    // byte (a whole-file write), or, read from scratch, in state (an in-place commit
                    // leaves an uncommitted tail, or a newer slot without its bytes, R3-SLT-4).
                    let old = generations[acknowledged]
                    let next = acknowledged + 1 < generations.count ? generations[acknowledged + 1] : nil
                    let read = try? openState(directory + "/" + vaultName)
                    let isOld = vault == old || read == states[acknowledged]
                    let isNew = next != nil && (vault == next || read == states[acknowledged + 1])
                    if vault == old || vault == next { outcomes.exact += 1 }
                    if let read, read.note { outcomes.notes += 1 }
                    if let read, read.tail > 0 { outcomes.tails += 1 }
                    if isOld {
                        outcomes.old += 1
                    } else if isNew {
                        outcomes.new += 1
                    } else if let read, states[..<acknowledged].contains(where: { $0 == read }) {
                        outcomes.lost += 1
                        tally.fail("power loss: \(label): an acknowledged commit was lost (\(read))")
                    } else {
                        outcomes.corrupt += 1
                        tally.fail(
                            "power loss: \(label): the vault is neither the old nor the new generation (\(read.map(\.description) ?? "does not open"))"
                        )
                    }
                    if !temporaryFiles(in: directory).isEmpty { outcomes.tempLeft += 1 }
                    // The next writer commits a real change on top, removes any temporary file and
                    // cuts any tail; the result verifies without a note.
                    guard let read, !tally.quiet else { continue }
                    do {
                        let reopened = try Vault(
                            path: directory + "/" + vaultName,
                            credentials: .password(password),
                            configuration: fastConfiguration
                        )
                        try reopened.write { try $0.set(draft("next", text: "after the power cut")) }
                        let after = try openState(directory + "/" + vaultName)
                        var items = after.items
                        items["next"] = nil
                        var before = read.items
                        before["next"] = nil
                        tally.check(
                            items == before && after.items["next"] != nil && !after.note && after.tail == 0
                                && temporaryFiles(in: directory).isEmpty,
                            "power loss: \(label): after the next write the vault is \(after), temporary files \(temporaryFiles(in: directory))"
                        )
                    } catch {
                        tally.fail("power loss: \(label): the next write failed: \(error)")
                    }
                }
            }
            model.apply(op)
            if case .mark = op { acknowledged += 1 }
        }
        print(
            "  crash points \(points.count) x \(variants) variants = \(cases): old \(outcomes.old), new \(outcomes.new), corrupt \(outcomes.corrupt), lost \(outcomes.lost); byte for byte a generation \(outcomes.exact); read with the note (a newer slot skipped) \(outcomes.notes); with an uncommitted tail \(outcomes.tails); temp files left \(outcomes.tempLeft) (all removed by the next writer)"
        )
        printResult(
            suite,
            tally,
            [
                "operations": ops.count, "commits": generations.count - 1, "whole_file_commits": renames,
                "crash_points": points.count, "variants": variants, "cases": cases, "old": outcomes.old,
                "new": outcomes.new, "corrupt": outcomes.corrupt, "lost": outcomes.lost, "notes": outcomes.notes,
                "tails": outcomes.tails,
            ]
        )
        return tally
    }
}
