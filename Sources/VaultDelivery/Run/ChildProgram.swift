// vault: the program `run` starts, looked up as execvp looks it up, and executed in place.

import CVaultRun
import Glibc

/// A program to start with an environment that holds secrets.
///
/// ```swift
/// let path = try ChildProgram.lookUp("printenv", searchPath: ChildProgram.minimalPath)
/// let program = ChildProgram(path: path, arguments: ["printenv", "TOKEN"], environment: [Array("TOKEN=s3cr3t".utf8)])
/// let status = try ChildSupervisor(program, secrets: [Array("s3cr3t".utf8)]).run()
/// ```
///
/// Spec: Spec/cli.md, "run".
public struct ChildProgram {
    /// The executable, looked up in PATH (``lookUp(_:searchPath:showsPath:)``).
    public var path: String
    /// The command and its arguments as given (no secret is ever placed here).
    public var arguments: [String]
    /// `NAME=VALUE` entries; the values may be secrets, so they stay bytes and are wiped.
    public var environment: [[UInt8]]
    /// Whether messages may show ``path``: not when it was found in a `PATH` that is itself a
    /// secret (a reference), whose directories must not reach stderr.
    public var showsPath = true

    /// A program at `path` (see ``lookUp(_:searchPath:showsPath:)``), started with `arguments`
    /// (the first is the command as typed) and `environment` (`NAME=VALUE` entries).
    public init(path: String, arguments: [String], environment: [[UInt8]], showsPath: Bool = true) {
        self.path = path
        self.arguments = arguments
        self.environment = environment
        self.showsPath = showsPath
    }

    /// The signals forwarded to the child.
    public static let forwardedSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]

    /// The default search path, also the PATH of a pristine child (``RunPlan``).
    public static let minimalPath = "/usr/local/bin:/usr/bin:/bin"

    /// Finds `command` as `execvp` does: a name with a `/` is used as is, any other is searched in
    /// each directory of `searchPath` (an empty entry is the current directory).
    ///
    /// - Throws: ``VaultDeliveryError`` ``VaultDeliveryError/Code/commandNotFound`` when nothing is
    ///   found, ``VaultDeliveryError/Code/commandNotExecutable`` when only a file that cannot be
    ///   executed is.
    public static func lookUp(_ command: String, searchPath: String, showsPath: Bool = true) throws(VaultDeliveryError)
        -> String
    {
        func check(_ path: String) -> Int32? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            if info.st_mode & S_IFMT == S_IFDIR { return EISDIR }
            return access(path, X_OK) == 0 ? 0 : EACCES
        }
        guard !command.isEmpty else { throw VaultDeliveryError(.commandNotFound, "the command is empty") }
        if command.contains("/") {
            switch check(command) {
            case nil:
                throw VaultDeliveryError(.commandNotFound, "the command '\(command)' does not exist")
            case 0?: return command
            case let error?:
                throw VaultDeliveryError(
                    .commandNotExecutable,
                    "the command '\(command)' cannot be executed: \(String(cString: strerror(error)))"
                )
            }
        }
        var refused: String?
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + command
            switch check(candidate) {
            case 0?: return candidate
            case nil: continue
            case _?: refused = refused ?? candidate
            }
        }
        if let refused {
            let place = showsPath ? "at '\(refused)'" : "in PATH (a secret, not shown)"
            throw VaultDeliveryError(
                .commandNotExecutable,
                "the command '\(command)' was found \(place) but cannot be executed"
            )
        }
        throw VaultDeliveryError(.commandNotFound, "the command '\(command)' was not found in PATH")
    }

    /// Replaces this process with the child (nothing to mask or clean up). Returns only by throwing.
    ///
    /// The corresponding C function is `execve`.
    public func execInPlace() throws(VaultDeliveryError) -> Never {
        let error: Int32 = withCStrings { argv, envp in vault_run_exec(path, argv, envp) }
        throw Self.execFailure(showsPath ? path : arguments[0], error)
    }

    /// The error for an `execve` that failed with `error`: not found for a missing file, else
    /// not executable.
    static func execFailure(_ path: String, _ error: Int32) -> VaultDeliveryError {
        VaultDeliveryError(
            error == ENOENT || error == ENOTDIR ? .commandNotFound : .commandNotExecutable,
            "cannot run '\(path)': \(String(cString: strerror(error)))"
        )
    }

    /// Calls `body` with NUL-terminated argv and envp arrays, then wipes and frees the environment.
    func withCStrings<T>(
        _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>, UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T
    ) -> T {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var sizes = [Int]()
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { entry in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: entry.count + 1)
            entry.withUnsafeBytes { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: entry.count)
            }
            buffer[entry.count] = 0
            sizes.append(entry.count + 1)
            return buffer
        }
        envp.append(nil)
        defer {
            for pointer in argv { free(pointer) }
            for (pointer, size) in zip(envp, sizes) {
                vault_run_wipe(pointer, size)
                pointer?.deallocate()
            }
        }
        return argv.withUnsafeBufferPointer { argvBuffer in
            envp.withUnsafeBufferPointer { envpBuffer in body(argvBuffer.baseAddress!, envpBuffer.baseAddress!) }
        }
    }
}
