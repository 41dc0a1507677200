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
        let directory = makeTemporaryDirectory("power")
        let log = makeTemporaryDirectory("power-log") + "/ops.log"
        defer {
            removeTree(directory)
            removeTree((log as NSString).deletingLastPathComponent)
        }
        do {
            try makeVault(in: directory, items: (0..<8).map { ("item-\($0)", fillerSecret(2000, seed: UInt64($0))) })
        } catch {
            tally.fail("power loss: setup failed: \(error)")
            return tally
        }
        var initial: [String: [UInt8]] = [:]
        for name in names(in: directory) { initial[name] = readBytes(directory + "/" + name) }
        let child = Child.spawn(
            ["child-power-loss", directory, mode == .full ? "--full" : "--quick"],
            environment: ["LD_PRELOAD": shim, "VAULT_SHIM_DIR": directory, "VAULT_SHIM_LOG": log]
        )
        let output = child.readAll()
        let status = child.wait()
        guard status == 0, output.contains("done") else {
            tally.fail("power loss: recording child failed (status \(status)): \(output)")
            return tally
        }
        guard let logBytes = readBytes(log), let ops = parse(logBytes) else {
            tally.fail("power loss: the shim wrote no readable log (is LD_PRELOAD working?)")
            return tally
        }
        let result = replay(mode, ops: ops, initial: initial, tally: tally)
        // Self-test: the same run without the file fsyncs, or without the directory fsyncs,
        // must be caught (corrupt, or an acknowledged commit lost).
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
            _ = replay(mode, ops: mutated, initial: initial, tally: quiet, label: "power-loss-without-\(mutant)-fsync")
            result.check(!quiet.failures.isEmpty, "power loss: removing the \(mutant) fsyncs went unnoticed")
        }
        return result
    }

    // MARK: - The recorded child

    static func child(directory: String, mode: Mode) -> Never {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "vault_shim_mark") else {
            emitLine("error: vault_shim_mark not found: run under the shim")
            exit(70)
        }
        typealias Mark = @convention(c) (Int64) -> Void
        let mark = unsafeBitCast(symbol, to: Mark.self)
        var random = SeededRandom(seed: 3)
        let commits = mode == .full ? 60 : 14
        do {
            let vault = try Vault(
                path: directory + "/" + vaultName,
                credentials: .password(password),
                configuration: fastConfiguration
            )
            for n in 0..<commits {
                let generation = try Syscalls.limitWrites(toAtMost: 8192) {
                    try vault.write { txn -> UInt64 in
                        let target = "item-\(random.next() % 12)"
                        switch random.next() % 4 {
                        case 0: try txn.remove(id: itemID(target))
                        default:
                            let size = [16, 700, 5000, 40000][Int(random.next() % 4)]
                            try txn.set(draft(target, secret: fillerSecret(size, seed: UInt64(n))))
                        }
                        try txn.set(draft("counter", text: "generation=\(txn.generation)"))
                        return txn.generation
                    }
                }
                mark(Int64(generation))
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

    final class Inode {
        var durable: [UInt8]
        var current: [UInt8]
        var pending: [(offset: Int, bytes: [UInt8])] = []
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
                inodes[inode].pending.append((offset, bytes))
            case .truncate(let fd, let length):
                guard let inode = descriptors[fd] ?? nil else { return }
                inodes[inode].current = Array(inodes[inode].current.prefix(length))
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
                for write in inode.pending {
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

    static func replay(
        _ mode: Mode,
        ops: [Op],
        initial: [String: [UInt8]],
        tally: Tally,
        label suite: String = "power-loss"
    ) -> Tally {
        // Pass 1: the vault's bytes at each acknowledgement.
        var model = Model(initial)
        var generations: [[UInt8]] = [initial[vaultName]!]
        var counts: [String: Int] = [:]
        for op in ops {
            model.apply(op)
            counts[op.name, default: 0] += 1
            if case .mark = op { generations.append(model.inodes[model.names[vaultName]!].current) }
        }
        let wanted = mode == .full ? 500 : 60
        let points = Set((0..<wanted).map { $0 * ops.count / wanted })
        let variants = 10
        print("Power loss: \(ops.count) recorded operations, \(generations.count - 1) acknowledged commits")
        print(
            "  operations: " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        )
        // Pass 2: crash at each chosen point.
        model = Model(initial)
        var acknowledged = 0
        var outcomes = (old: 0, new: 0, corrupt: 0, lost: 0, tempLeft: 0)
        var cases = 0
        let scratch = makeTemporaryDirectory("power-replay")
        defer { removeTree(scratch) }
        for (index, op) in ops.enumerated() {
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
                    let old = generations[acknowledged]
                    let next = acknowledged + 1 < generations.count ? generations[acknowledged + 1] : nil
                    if vault == old {
                        outcomes.old += 1
                    } else if vault == next {
                        outcomes.new += 1
                    } else if generations[..<acknowledged].contains(vault) {
                        outcomes.lost += 1
                        tally.fail("power loss: \(label): an acknowledged commit was lost")
                    } else {
                        outcomes.corrupt += 1
                        tally.fail("power loss: \(label): the vault is neither the old nor the new generation")
                    }
                    if !temporaryFiles(in: directory).isEmpty { outcomes.tempLeft += 1 }
                    do {
                        _ = try openState(directory + "/" + vaultName)
                        let reopened = try Vault(
                            path: directory + "/" + vaultName,
                            credentials: .password(password),
                            configuration: fastConfiguration
                        )
                        try reopened.write { _ in }
                        tally.check(
                            temporaryFiles(in: directory).isEmpty,
                            "power loss: \(label): temp file not removed"
                        )
                    } catch {
                        if vault == old || vault == next {
                            tally.fail("power loss: \(label): a complete generation failed to open: \(error)")
                        }
                    }
                }
            }
            model.apply(op)
            if case .mark = op { acknowledged += 1 }
        }
        print(
            "  crash points \(points.count) x \(variants) variants = \(cases): old \(outcomes.old), new \(outcomes.new), corrupt \(outcomes.corrupt), lost \(outcomes.lost); temp files left \(outcomes.tempLeft) (all removed by the next writer)"
        )
        printResult(
            suite,
            tally,
            [
                "operations": ops.count, "commits": generations.count - 1, "crash_points": points.count,
                "variants": variants, "cases": cases, "old": outcomes.old, "new": outcomes.new,
                "corrupt": outcomes.corrupt, "lost": outcomes.lost,
            ]
        )
        return tally
    }
}
