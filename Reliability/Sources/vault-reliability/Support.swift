// vault reliability: shared helpers: temporary directories, test items, vault states, child processes.

import Foundation
import Glibc
import VaultFormat
import VaultIO
import _VaultHooks

/// The password of every vault the suites create.
let password = "correct horse battery staple"
/// The name of the vault file inside a suite's directory.
let vaultName = "test.vault"
/// Fast Argon2id (64 KiB, 1 pass): the suites open vaults thousands of times.
let fastConfiguration = VaultConfiguration.insecureForTesting(lockTimeout: .seconds(30))

/// The format a suite's vaults are created in. The suites that write run both, one after the other
/// (`--format 1.1` or `--format 3` runs one).
enum Format: String, CaseIterable, Sendable {
    /// Format 1.1: every commit writes a whole new file and renames it over the vault.
    case whole = "1.1"
    /// Format 3 (Spec/format-v3.md): a commit appends what changed, writes the other slot and calls
    /// `fdatasync` (§9.1); creation, rekey, migration and compaction write the whole file (§9.2).
    case v3 = "3"

    /// The fast test configuration, creating vaults of this format.
    var configuration: VaultConfiguration {
        var configuration = fastConfiguration
        configuration.newVaultFormat = self == .v3 ? .version3 : .version1_1
        return configuration
    }

    var label: String { "format \(rawValue)" }
}

/// The formats to run: `--format 1.1` or `--format 3` for one, both by default.
var selectedFormats: [Format] {
    option("--format").map { name in Format(rawValue: name).map { [$0] } ?? [] } ?? Format.allCases
}

/// Whether the suite runs its full size (`--full`) or the CI size (`--quick`).
enum Mode: String, Sendable {
    case quick, full
}

/// Counts failures of a suite; the process exits 1 when any was recorded.
final class Tally: @unchecked Sendable {
    private(set) var failures: [String] = []
    /// Whether failures are only counted, not printed (the harness's own self-tests).
    var quiet = false

    /// Records a failure (printed at once, so that a long run shows problems early).
    func fail(_ message: String) {
        failures.append(message)
        if quiet { return }
        FileHandle.standardError.write(Data("FAIL: \(message)\n".utf8))
    }

    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }
}

// MARK: - Files and directories

/// Creates a fresh directory under `$TMPDIR` (or /tmp) and returns its resolved path.
func makeTemporaryDirectory(_ prefix: String) -> String {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(base)/vault-rel-\(prefix)-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: \(String(cString: strerror(errno)))") }
    guard let resolved = realpath(made, nil) else { fatalError("realpath failed") }
    defer { free(resolved) }
    return String(cString: resolved)
}

func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

func readBytes(_ path: String) -> [UInt8]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return [UInt8](data)
}

func writeBytes(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    precondition(fd >= 0, "open \(path): \(String(cString: strerror(errno)))")
    var done = 0
    bytes.withUnsafeBytes { buffer in
        while done < buffer.count {
            let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
            precondition(n > 0, "write \(path)")
            done += n
        }
    }
    close(fd)
}

/// The names in a directory, sorted.
func names(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// Copies every regular file of `source` into the (existing or new) directory `destination`.
func copyDirectory(_ source: String, to destination: String) {
    try? FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
    for name in names(in: source) {
        if let bytes = readBytes(source + "/" + name) { writeBytes(bytes, to: destination + "/" + name) }
    }
}

/// The temporary files a commit leaves when it dies (`.<vault>.tmp-*`).
func temporaryFiles(in directory: String) -> [String] { names(in: directory).filter { $0.contains(".tmp-") } }

// MARK: - Items and states

/// A stable 16-byte item ID for `name` (FNV-1a, twice).
func itemID(_ name: String) -> ItemID {
    var bytes: [UInt8] = []
    for salt in [UInt64(0xcbf2_9ce4_8422_2325), 0x8422_2325_cbf2_9ce4] {
        var hash = salt
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        withUnsafeBytes(of: hash.bigEndian) { bytes.append(contentsOf: $0) }
    }
    return ItemID(bytes: bytes)
}

/// A generic password named `name` (its service) with `secret`.
func draft(_ name: String, secret: [UInt8]) -> ItemDraft {
    ItemDraft(
        id: itemID(name),
        attributes: ItemAttributes(service: name, account: "reliability"),
        secret: SecretBytes(bytes: secret)
    )
}

func draft(_ name: String, text: String) -> ItemDraft { draft(name, secret: Array(text.utf8)) }

/// Deterministic filler bytes for big secrets.
func fillerSecret(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// FNV-1a 64 of some bytes.
func fnv(_ bytes: some Sequence<UInt8>, _ start: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
    var hash = start
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}

/// What a vault holds, independent of nonces: every item's ID, service, account and secret digest.
///
/// Two states are equal when their generations and items are; ``note`` and ``tail`` describe the
/// file, not the vault, and do not count.
struct VaultState: Equatable, CustomStringConvertible {
    var generation: UInt64
    var items: [String: String]  // service -> "id/account/length/fnv(secret)"
    /// Format 3: the reader skipped a damaged slot or a newer commit that did not complete
    /// (`VaultSnapshot.skippedIncompleteCommit`, R3-SLT-4).
    var note = false
    /// Format 3: the bytes after the current commit (R3-SLT-6); 0 for other formats.
    var tail = 0

    var description: String {
        "generation \(generation), \(items.count) items" + (note ? ", note" : "") + (tail > 0 ? ", tail \(tail)" : "")
    }

    /// Everything but the generation.
    func sameContent(as other: VaultState) -> Bool { items == other.items }

    static func == (a: VaultState, b: VaultState) -> Bool { a.generation == b.generation && a.items == b.items }
}

/// Reads every item and secret of a snapshot, and verifies it (records, padding, primary keys).
func state(of snapshot: VaultSnapshot) throws -> VaultState {
    _ = try snapshot.verify()
    var items: [String: String] = [:]
    for item in try snapshot.items(includeSecrets: true) {
        let secret = item.secret?.copyBytes() ?? []
        items[item.attributes.service] =
            "\(item.entry.itemID)/\(item.attributes.account)/\(secret.count)/\(fnv(secret))"
    }
    let tail = snapshot.header.committedLength.map { committed in (fileLength(of: snapshot.source) ?? committed) - committed } ?? 0
    return VaultState(
        generation: snapshot.header.generation,
        items: items,
        note: snapshot.skippedIncompleteCommit,
        tail: tail
    )
}

/// The length of the file a snapshot reads, when the source knows it.
func fileLength(of source: any RecordSource) -> Int? {
    if let reader = source as? VaultFileReader { return reader.fileLength }
    if let file = source as? InMemoryFile { return file.bytes.count }
    return nil
}

/// Opens the vault at `path` from scratch (password, KDF) and reads its whole state.
func openState(_ path: String) throws -> VaultState {
    let vault = try Vault(path: path, credentials: .password(password), configuration: fastConfiguration)
    return try vault.read { try state(of: $0) }
}

/// Creates `directory/test.vault` holding `items` (name, secret) and returns the vault.
@discardableResult
func makeVault(in directory: String, items: [(String, [UInt8])], format: Format = .v3) throws -> Vault {
    let vault = try Vault.create(
        at: directory + "/" + vaultName,
        credentials: .password(password),
        configuration: format.configuration
    )
    if !items.isEmpty {
        try vault.write { txn in
            for (name, secret) in items { try txn.set(draft(name, secret: secret)) }
        }
    }
    return vault
}

// MARK: - Child processes

/// This executable, for starting children.
let selfExecutable: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    precondition(n > 0)
    return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}()

/// A started child process whose standard output is a pipe.
struct Child {
    let pid: pid_t
    /// The read end of the child's stdout.
    let output: CInt

    /// Starts `executable` (this program by default) with `arguments` and extra environment.
    static func spawn(
        _ arguments: [String],
        executable: String = selfExecutable,
        environment: [String: String] = [:]
    ) -> Child {
        var pipeFDs: [CInt] = [-1, -1]
        precondition(pipe(&pipeFDs) == 0)
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        posix_spawn_file_actions_destroy(&actions)
        precondition(rc == 0, "posix_spawn \(executable): \(String(cString: strerror(rc)))")
        close(pipeFDs[1])
        return Child(pid: pid, output: pipeFDs[0])
    }

    /// Waits for the child; returns the raw wait status.
    @discardableResult
    func wait() -> CInt {
        var status: CInt = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// Reads everything the child writes until it closes its stdout.
    func readAll() -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(output, &buffer, buffer.count)
            if n > 0 {
                data.append(contentsOf: buffer.prefix(n))
            } else if n == -1 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(output)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Writes a line to standard output at once (children report through a pipe; no buffering).
func emitLine(_ text: String) {
    let line = Array((text + "\n").utf8)
    line.withUnsafeBytes { buffer in
        var done = 0
        while done < buffer.count {
            let n = write(1, buffer.baseAddress! + done, buffer.count - done)
            if n <= 0 { if errno == EINTR { continue } else { return } }
            done += n
        }
    }
}

/// Monotonic time in seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A small seeded random generator (SplitMix64), so that runs can be repeated with `--seed`.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Prints a suite's summary line in one grep-able shape: `RESULT <suite> PASS|FAIL key=value ...`.
func printResult(_ suite: String, _ tally: Tally, _ figures: KeyValuePairs<String, Any>) {
    let text = figures.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    if tally.quiet {
        print("SELFTEST \(suite) \(tally.failures.isEmpty ? "MISSED" : "DETECTED") \(text)")
        return
    }
    print("RESULT \(suite) \(tally.failures.isEmpty ? "PASS" : "FAIL") \(text)")
}
