// vault-bench: format 3 beside format 2.0 in one run (issue 21's targets, BENCHMARKS.md).
//
//   vault-bench formats --sizes 10000,100000 --rounds 15 --dir DIR --password-file F
//   vault-bench growth --n 10000 --commits 600 --dir DIR --password-file F
//   vault-bench tail --n 100000 --tail 1048576 --rounds 21 --dir DIR --password-file F

import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// The two writers compared: format 2.0 (a 1.1 vault raised to 2.0, rewritten whole at every
/// commit) and format 3 (in-place commits, Spec/format-v3.md §9.1).
enum BenchFormat: String, CaseIterable {
    case v2 = "2.0"
    case v3 = "3"
}

/// Both formats' vaults of one size, measured in interleaved rounds.
struct FormatBench {
    let n: Int
    let rounds: Int
    let directory: String
    let password: [UInt8]

    /// A vault of `n` items (`Dataset.drafts`) in `format`, made with the cheap KDF.
    static func make(_ format: BenchFormat, at path: String, drafts: [ItemDraft], password: [UInt8]) throws -> Vault {
        unlink(path)
        var configuration = VaultConfiguration.insecureForTesting(kdf: InProcess.cheapKDF)
        configuration.newVaultFormat = format == .v3 ? .version3 : .version1_1
        let vault = try Vault.create(
            at: path,
            credentials: Credentials(password: SecretBytes(bytes: password)),
            configuration: configuration
        )
        if format == .v2 { try BenchmarkEntryPoints.upgradeToVersion2(vault) }
        if !drafts.isEmpty {
            try vault.write { txn in for draft in drafts { try txn.set(draft) } }
        }
        return vault
    }

    func run() throws {
        let drafts = Dataset.drafts(n)
        var vaults: [BenchFormat: Vault] = [:]
        var paths: [BenchFormat: String] = [:]
        for format in BenchFormat.allCases {
            let path = directory + "/formats-\(format.rawValue)-\(n).vault"
            paths[format] = path
            vaults[format] = try Self.make(format, at: path, drafts: drafts, password: password)
            let size = fileSize(path)
            emit(
                Result(
                    op: "bytes",
                    n: n,
                    sample: Sample(runs: [Double(size)]),
                    extra: [("format", "\"\(format.rawValue)\""), ("per_item", String(Double(size) / Double(n)))]
                )
            )
        }
        let key = Dataset.primaryKey(Dataset.getIndex(n))
        let target = Dataset.setIndex(n)
        // The vaults as everyday use leaves them: their last two commits one-item sets. (A format-3
        // reader hashes the newest commit's appended bytes at every open, R3-SLT-3: right after a
        // bulk commit that is up to 1 MiB, R3-WR-2; `vault-bench tail` measures that case.)
        for warmUp in 0..<2 {
            for format in BenchFormat.allCases {
                let draft = ItemDraft(
                    id: drafts[target].id,
                    attributes: Dataset.attributes(target),
                    secret: SecretBytes(bytes: Dataset.newSecret(1_000 + warmUp))
                )
                try vaults[format]!.write { txn in try txn.set(draft) }
            }
        }

        // Open + get one, keys held: the newest generation opened, the item found by its lookup tag
        // (format 3: one node per level; 2.0: the whole index decrypted), its secret decrypted. Then
        // the public `position(of:)`, which needs the whole index in both formats.
        var get: [BenchFormat: Sample] = [:]
        var getByPosition: [BenchFormat: Sample] = [:]
        for round in 0..<max(rounds, 21) {
            for format in ordered(round) {
                let vault = vaults[format]!
                get[format, default: Sample()].runs.append(
                    try timed {
                        try vault.read { snapshot in
                            guard try BenchmarkEntryPoints.secret(of: key, in: snapshot) != nil else {
                                fatalError("item missing")
                            }
                        }
                    }
                )
                getByPosition[format, default: Sample()].runs.append(
                    try timed {
                        try vault.read { snapshot in
                            guard let position = try snapshot.position(of: key) else { fatalError("item missing") }
                            _ = try snapshot.secret(at: position)
                        }
                    }
                )
            }
        }
        emitPair("get-inproc", get)
        emitPair("get-inproc-position", getByPosition)

        // Set one (an update of item n/3) beside the floor of what its commit must write, interleaved:
        // 2.0 rewrites the file (floor: create, write and fsync a file of its size); 3 appends and
        // writes a slot (floor: pwrite of the same number of bytes at the end of a file of the
        // vault's size, pwrite of 512 bytes at its start, one fdatasync).
        var set: [BenchFormat: Sample] = [:]
        var floor: [BenchFormat: Sample] = [:]
        var appended = Sample()
        let floorPath = directory + "/formats-floor-\(n).tmp"
        var inPlaceFloor = try AppendFloor(path: floorPath, size: fileSize(paths[.v3]!))
        defer { inPlaceFloor.close() }
        var compactions = 0
        for round in 0..<max(rounds, 7) {
            for format in ordered(round) {
                let draft = ItemDraft(
                    id: drafts[target].id,
                    attributes: Dataset.attributes(target),
                    secret: SecretBytes(bytes: Dataset.newSecret(round))
                )
                let before = fileSize(paths[format]!)
                let time = try timed { try vaults[format]!.write { txn in try txn.set(draft) } }
                set[format, default: Sample()].runs.append(time)
                let after = fileSize(paths[format]!)
                switch format {
                case .v2:
                    floor[format, default: Sample()].runs.append(Floors.writeAndSync(count: after, in: directory))
                case .v3:
                    guard after > before else {
                        // A full rewrite (compaction): no in-place floor for this round.
                        compactions += 1
                        continue
                    }
                    appended.runs.append(Double(after - before))
                    floor[format, default: Sample()].runs.append(inPlaceFloor.appendSlotAndSync(count: after - before))
                }
            }
        }
        emitPair("set-inproc", set)
        emitPair("set-floor", floor)
        emit(Result(op: "set-appended-bytes", n: n, sample: appended, extra: [("compactions", String(compactions))]))

        // List every item's attributes, and verify every record, interleaved.
        var list: [BenchFormat: Sample] = [:]
        var verify: [BenchFormat: Sample] = [:]
        for round in 0..<rounds {
            for format in ordered(round) {
                let vault = vaults[format]!
                list[format, default: Sample()].runs.append(
                    try timed { _ = try vault.read { try $0.items(includeSecrets: false) } }
                )
                verify[format, default: Sample()].runs.append(try timed { _ = try vault.read { try $0.verify() } })
            }
        }
        emitPair("list-inproc", list)
        emitPair("verify-inproc", verify)
        for path in paths.values { unlink(path) }
    }

    /// The formats in the order of round `round`: alternated, so that neither always runs first.
    private func ordered(_ round: Int) -> [BenchFormat] {
        round % 2 == 0 ? [.v2, .v3] : [.v3, .v2]
    }

    private func emitPair(_ op: String, _ samples: [BenchFormat: Sample]) {
        for format in BenchFormat.allCases {
            emit(
                Result(op: op, n: n, sample: samples[format] ?? Sample(), extra: [("format", "\"\(format.rawValue)\"")])
            )
        }
    }
}

/// The size of the file at `path`.
func fileSize(_ path: String) -> Int {
    var status = stat()
    precondition(stat(path, &status) == 0, "stat \(path) failed: \(errno)")
    return Int(status.st_size)
}

/// The physical floor of an in-place commit (Spec/format-v3.md §9.1 steps 3 to 5) on a file of
/// the vault's size: `pwrite` of the appended bytes at its end, `pwrite` of a 512-byte slot at
/// offset 0 or 512 (alternately), one `fdatasync`. The file grows as the vault does.
struct AppendFloor {
    private let path: String
    private let fd: Int32
    private var end: Int
    private var slot = 0

    /// Creates the file with `size` bytes, written and synced (untimed).
    init(path: String, size: Int) throws {
        self.path = path
        unlink(path)
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "open \(path) failed: \(errno)")
        end = 0
        Self.write(fd, [UInt8](repeating: 0x5A, count: size), at: 0)
        precondition(fsync(fd) == 0, "fsync failed: \(errno)")
        end = size
    }

    /// Appends `count` bytes and writes a slot, then one `fdatasync`; returns the seconds taken.
    ///
    /// The corresponding C functions are `pwrite` and `fdatasync`.
    mutating func appendSlotAndSync(count: Int) -> Double {
        let bytes = [UInt8](repeating: 0xA5, count: count)
        let slotBytes = [UInt8](repeating: 0x3C, count: 512)
        let at = end
        let slotOffset = slot * 512
        let seconds = timed {
            Self.write(fd, bytes, at: at)
            Self.write(fd, slotBytes, at: slotOffset)
            precondition(fdatasync(fd) == 0, "fdatasync failed: \(errno)")
        }
        end += count
        slot = 1 - slot
        return seconds
    }

    func close() {
        Glibc.close(fd)
        unlink(path)
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int) {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                precondition(n > 0 || errno == EINTR, "pwrite failed: \(errno)")
                if n > 0 { done += n }
            }
        }
    }
}

// MARK: - Growth and compaction

/// Format 3 over many one-item commits: how the file grows, how much of it is waste, and when a
/// commit compacts (R3-WR-3: a full rewrite once the waste would pass both the live bytes and 1 MiB).
enum GrowthBench {
    static func run(n: Int, commits: Int, directory: String, password: [UInt8]) throws {
        let path = directory + "/growth-\(n).vault"
        let drafts = Dataset.drafts(n)
        let vault = try FormatBench.make(.v3, at: path, drafts: drafts, password: password)
        let start = try vault.read { BenchmarkEntryPoints.commitFigures($0)! }
        var inPlace = Sample()
        var rewrites = Sample()
        var appended = Sample()
        var compactedAt: [Int] = []
        var largest = fileSize(path)
        var mostWaste: UInt64 = 0
        var wasteSum: Double = 0
        // Items spread over the vault: a stride prime to n.
        let stride = n > 7_919 ? 7_919 : max(1, n / 2 + 1)
        for k in 0..<commits {
            let target = (k * stride + 1) % n
            let draft = ItemDraft(
                id: drafts[target].id,
                attributes: Dataset.attributes(target),
                secret: SecretBytes(bytes: Dataset.newSecret(k))
            )
            let time = try timed { try vault.write { txn in try txn.set(draft) } }
            let figures = try vault.read { BenchmarkEntryPoints.commitFigures($0)! }
            if figures.isFullRewrite {
                rewrites.runs.append(time)
                compactedAt.append(k + 1)
            } else {
                inPlace.runs.append(time)
                appended.runs.append(Double(figures.committedLength - figures.commitStart))
            }
            largest = max(largest, fileSize(path))
            mostWaste = max(mostWaste, figures.waste)
            wasteSum += Double(figures.waste)
        }
        let end = try vault.read { BenchmarkEntryPoints.commitFigures($0)! }
        let common: [(String, String)] = [
            ("commits", String(commits)),
            ("start_file_bytes", String(start.committedLength)),
            ("start_live_bytes", String(start.liveBytes)),
            ("end_file_bytes", String(fileSize(path))),
            ("end_live_bytes", String(end.liveBytes)),
            ("largest_file_bytes", String(largest)),
            ("most_waste_bytes", String(mostWaste)),
            ("mean_waste_bytes", String(wasteSum / Double(max(commits, 1)))),
            ("compactions", String(compactedAt.count)),
            ("compacted_at", "[" + compactedAt.map(String.init).joined(separator: ",") + "]"),
        ]
        emit(Result(op: "growth-appended-bytes", n: n, sample: appended, extra: common))
        emit(Result(op: "growth-set-inplace", n: n, sample: inPlace))
        emit(Result(op: "growth-set-compaction", n: n, sample: rewrites))
        unlink(path)
    }
}

// MARK: - Uncommitted tail

/// The open cost of a format-3 file with bytes after its commit: a clean file; the same file with
/// an uncommitted tail (a commit that stopped before its slot was written, R3-SLT-6); and a torn
/// commit (slot written, its appended bytes damaged: the reader hashes that commit, finds it
/// incomplete and falls back to the other slot, R3-SLT-3, R3-SLT-4). Then a set on a file with a
/// tail (the writer cuts it first, §9.1 step 2) beside a set on the clean file.
enum TailBench {
    static func run(n: Int, tail: Int, rounds: Int, directory: String, password: [UInt8]) throws {
        let drafts = Dataset.drafts(n)
        let clean = directory + "/tail-clean-\(n).vault"
        var vault = try FormatBench.make(.v3, at: clean, drafts: drafts, password: password)
        // One in-place commit, so that the current slot has appended bytes to hash.
        let target = Dataset.setIndex(n)
        func draft(_ run: Int) -> ItemDraft {
            ItemDraft(
                id: drafts[target].id,
                attributes: Dataset.attributes(target),
                secret: SecretBytes(bytes: Dataset.newSecret(run))
            )
        }
        try vault.write { txn in try txn.set(draft(0)) }
        let figures = try vault.read { BenchmarkEntryPoints.commitFigures($0)! }
        precondition(!figures.isFullRewrite, "the commit was not in place")
        let bytes = readAll(clean)
        let tailPath = directory + "/tail-tail-\(n).vault"
        let torn = directory + "/tail-torn-\(n).vault"
        writeAll(tailPath, bytes + randomBytes(tail))
        var tornBytes = bytes
        tornBytes[Int(figures.commitStart) + Int(figures.committedLength - figures.commitStart) / 2] ^= 0x01
        writeAll(torn, tornBytes)
        let credentials = Credentials(password: SecretBytes(bytes: password))
        let configuration = VaultConfiguration.insecureForTesting(kdf: InProcess.cheapKDF)
        // A file whose newest commit is a large one in place (many items changed at once, below
        // R3-WR-2's 1 MiB): a reader hashes all of it at every open until the next commit.
        let bulk = directory + "/tail-bulk-\(n).vault"
        writeAll(bulk, bytes)
        let bulkVault = try Vault(path: bulk, credentials: credentials, configuration: configuration)
        let spread = max(1, n / 200)
        try bulkVault.write { txn in
            for i in Swift.stride(from: 0, to: n, by: spread).prefix(200) {
                try txn.set(
                    ItemDraft(
                        id: drafts[i].id,
                        attributes: Dataset.attributes(i),
                        secret: SecretBytes(bytes: Dataset.newSecret(i))
                    )
                )
            }
        }
        let bulkFigures = try bulkVault.read { BenchmarkEntryPoints.commitFigures($0)! }
        let bulkBytes = bulkFigures.isFullRewrite ? 0 : Int(bulkFigures.committedLength - bulkFigures.commitStart)
        let files = [("clean", clean), ("tail", tailPath), ("torn", torn), ("bulk", bulk)]
        var vaults = try files.map { try Vault(path: $0.1, credentials: credentials, configuration: configuration) }
        let key = Dataset.primaryKey(Dataset.getIndex(n))
        var opens = [Sample](repeating: Sample(), count: files.count)
        var freshOpens = [Sample](repeating: Sample(), count: files.count)
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(files.indices) : files.indices.reversed()
            for i in order {
                opens[i].runs.append(
                    try timed {
                        try vaults[i].read { snapshot in
                            guard try BenchmarkEntryPoints.secret(of: key, in: snapshot) != nil else {
                                fatalError("item missing")
                            }
                        }
                    }
                )
                // A fresh open with credentials (cheap KDF): the head read, the slots hashed.
                freshOpens[i].runs.append(
                    try timed {
                        let snapshot = try VaultFileReader(path: files[i].1).open(with: credentials)
                        guard try BenchmarkEntryPoints.secret(of: key, in: snapshot) != nil else {
                            fatalError("item missing")
                        }
                    }
                )
            }
        }
        for (i, file) in files.enumerated() {
            let extra = [
                ("file", "\"\(file.0)\""), ("tail_bytes", String(file.0 == "tail" ? tail : 0)),
                (
                    "last_commit_bytes",
                    String(file.0 == "bulk" ? bulkBytes : Int(figures.committedLength - figures.commitStart))
                ),
            ]
            emit(Result(op: "tail-get-inproc", n: n, sample: opens[i], extra: extra))
            emit(Result(op: "tail-open-get-cheapkdf", n: n, sample: freshOpens[i], extra: extra))
        }

        // A set on the file with a tail (put back before each round, synced, untimed) beside a set
        // on the clean file.
        vault = vaults[0]
        let withTail = vaults[1]
        var setClean = Sample()
        var setTail = Sample()
        let junk = randomBytes(tail)
        for round in 0..<max(rounds / 2, 7) {
            appendAndSync(tailPath, junk)
            for i in round % 2 == 0 ? [0, 1] : [1, 0] {
                let time = try timed { try (i == 0 ? vault : withTail).write { txn in try txn.set(draft(round + 1)) } }
                if i == 0 { setClean.runs.append(time) } else { setTail.runs.append(time) }
            }
        }
        emit(Result(op: "tail-set-clean", n: n, sample: setClean))
        emit(Result(op: "tail-set-tail", n: n, sample: setTail, extra: [("tail_bytes", String(tail))]))
        vaults.removeAll()
        for (_, path) in files { unlink(path) }
    }

    private static func readAll(_ path: String) -> [UInt8] {
        let size = fileSize(path)
        var bytes = [UInt8](repeating: 0, count: size)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        precondition(fd >= 0, "open \(path) failed: \(errno)")
        defer { close(fd) }
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, size, 0) }
        precondition(got == size, "short read of \(path)")
        return bytes
    }

    private static func writeAll(_ path: String, _ bytes: [UInt8]) {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "open \(path) failed: \(errno)")
        defer { close(fd) }
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        precondition(wrote == bytes.count && fsync(fd) == 0, "write of \(path) failed")
    }

    private static func appendAndSync(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        precondition(fd >= 0, "open \(path) failed: \(errno)")
        defer { close(fd) }
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        precondition(wrote == bytes.count && fsync(fd) == 0, "append to \(path) failed")
    }

    private static func randomBytes(_ count: Int) -> [UInt8] { SystemRandom().bytes(count) }
}
