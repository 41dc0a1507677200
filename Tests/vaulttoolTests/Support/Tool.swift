// vaulttool tests: running the built binary, as swift-argument-parser's AssertExecuteCommand does.

import Foundation
import Glibc
import Testing

/// The outcome of one run of `vaulttool`.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutBytes: [UInt8]

    /// The stdout parsed as a JSON object.
    func json() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(stdoutBytes))
        return try #require(value as? [String: Any])
    }
}

enum Tool {
    /// The built `vaulttool`: `VAULTTOOL` if set, else next to the test bundle, else `swift build --show-bin-path`.
    static let path: String = {
        if let path = ProcessInfo.processInfo.environment["VAULTTOOL"] { return path }
        var candidates = [String]()
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let directory = (exe as NSString).deletingLastPathComponent
            candidates += [directory + "/vaulttool", (directory as NSString).deletingLastPathComponent + "/vaulttool"]
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vaulttool").path)
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "build", "--show-bin-path"]
        process.currentDirectoryURL = packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        try? process.run()
        process.waitUntilExit()
        let bin = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return bin.trimmingCharacters(in: .whitespacesAndNewlines) + "/vaulttool"
    }()

    /// Where a run keeps its rollback state: `<directory>/.state`, or one temporary directory per test process.
    static func stateHome(_ directory: String?) -> String {
        (directory ?? scratchDirectory) + "/.state"
    }

    /// Not created: runs outside a workspace open no vault, so vaulttool never needs it.
    private static let scratchDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("vaulttool-state-\(UUID().uuidString)").path

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A sample export in `Tests/vaulttoolTests/Data`.
    static func data(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/vaulttoolTests/Data/\(name)").path
    }

    /// Runs `vaulttool arguments` with `stdin` (bytes, or nothing: /dev/null) in `directory`.
    @discardableResult
    static func run(
        _ arguments: [String],
        stdin: [UInt8]? = nil,
        environment: [String: String] = [:],
        in directory: String? = nil
    ) throws -> RunResult {
        var env = ProcessInfo.processInfo.environment
        // The rollback state (Spec/cli.md, "Rollback") goes to the workspace, never the real home.
        env["XDG_STATE_HOME"] = stateHome(directory)
        for (key, value) in environment { env[key] = value }
        return try runProgram(path, arguments, stdin: stdin, environment: env, in: directory)
    }

    /// Runs `executable arguments` with exactly `environment`, `stdin` (bytes, or /dev/null)
    /// and `directory`, reading stdout and stderr to their ends.
    static func runProgram(
        _ executable: String,
        _ arguments: [String],
        stdin: [UInt8]?,
        environment: [String: String],
        in directory: String?
    ) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle(forReadingAtPath: "/dev/null") : input
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        if let stdin { input.feed(stdin) }
        // Read both pipes concurrently so that a full pipe never blocks the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = error.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            stdoutBytes: Array(outData)
        )
    }

    /// Runs `vaulttool` under `script(1)`, so that it has a controlling pseudo-terminal;
    /// `typed` is sent after a short delay, as a person would type it.
    static func runInTerminal(_ arguments: [String], typed: String, in directory: String) throws -> RunResult {
        let command = (["env", "XDG_STATE_HOME=\(stateHome(directory))", path] + arguments).map { "'\($0)'" }
            .joined(separator: " ")
        let shell = "(sleep 0.4; printf '%s' '\(typed)') | script -qec \"\(command)\" /dev/null"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", shell]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: data, as: UTF8.self),
            stderr: "",
            stdoutBytes: Array(data)
        )
    }
}

/// Ignoring SIGPIPE for the whole test process, once: the process runs many tests at a time.
private let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

extension Pipe {
    /// Writes `bytes` to a child's stdin and closes it. A child that exits without reading all
    /// of its input (a refused command) is behaviour under test: the write then fails with EPIPE,
    /// which is ignored here, instead of SIGPIPE killing the test process.
    func feed(_ bytes: some Sequence<UInt8>) {
        brokenPipesIgnored
        try? fileHandleForWriting.write(contentsOf: Data(bytes))
        try? fileHandleForWriting.close()
    }
}

/// A temporary directory with a password file, removed afterwards.
final class Workspace {
    let path: String
    static let password = "correct horse battery staple"
    /// The floor of Spec/format-v1.md R-KS-4, so that tests run fast.
    static let fastKDF = ["--kdf-memory", "19456", "--kdf-iterations", "2", "--kdf-lanes", "1"]

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("vaulttool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try write("pw", Workspace.password + "\n")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
    }

    /// Runs vaulttool in this directory.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> RunResult {
        try Tool.run(arguments, stdin: stdin.map { Array($0.utf8) }, environment: environment, in: path)
    }

    /// Creates `v.vault` with the fast KDF and returns its path; `format` is `create --format`'s
    /// (format 3 by default; "1.1" for the tests of what formats 1.x and 2.0 do).
    @discardableResult
    func makeVault(_ name: String = "v.vault", format: String? = nil) throws -> String {
        let formatOption = format.map { ["--format", $0] } ?? []
        let result = try run(["create", "--password-file", "pw"] + formatOption + Workspace.fastKDF + [name])
        #expect(result.status == 0, "\(result.stderr)")
        return file(name)
    }

    /// `printf %s secret | vaulttool set --password-file pw ...`.
    @discardableResult
    func set(_ secret: String, _ options: [String], vault: String = "v.vault") throws -> RunResult {
        let result = try run(["set", "--password-file", "pw"] + options + [vault], stdin: secret)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }
}

/// The integer members of a JSON object.
func numbers(_ object: Any?) -> [String: Int] {
    (object as? [String: Any] ?? [:]).compactMapValues { $0 as? String == nil ? $0 as? Int : nil }
}
