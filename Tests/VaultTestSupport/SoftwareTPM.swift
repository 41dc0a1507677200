// vault tests: a fresh software TPM (swtpm) per test, run as a child process and stopped by PID.

import Foundation
import Glibc

/// One swtpm instance with its own state directory.
///
/// `scripts/install-test-deps.sh` installs swtpm and tpm2-tools (Debian's packages).
public final class SoftwareTPM: @unchecked Sendable {
    /// The state directory; the sockets are inside it.
    public let directory: String
    private var pid: pid_t = 0

    /// The TCTI string for `--tpm2-tcti`, `VAULT_TPM2_TCTI` and `TPM2Device(tcti:)`.
    public var tcti: String { "swtpm:path=\(directory)/s" }
    /// The environment that points vaulttool and tpm2-tools at this TPM.
    public var environment: [String: String] { ["VAULT_TPM2_TCTI": tcti, "TPM2TOOLS_TCTI": tcti] }

    /// Starts swtpm with its state in `directory` (created when missing).
    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try start()
    }

    /// Starts (or restarts, keeping its state) the simulator as a child of this process.
    ///
    /// swtpm runs in the foreground (no `--daemon`): a daemon's parent exits while the daemon
    /// holds the parent's output, and Foundation's `Process` then waits forever.
    public func start() throws {
        let d = directory
        let arguments = [
            "/usr/bin/swtpm", "socket", "--tpm2", "--tpmstate", "dir=\(d)", "--server", "type=unixio,path=\(d)/s",
            "--ctrl", "type=unixio,path=\(d)/s.ctrl", "--flags", "not-need-init,startup-clear",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, d + "/swtpm.log", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var env: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { for pointer in env { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, nil, &argv, &env)
        guard status == 0 else { throw SoftwareTPMError(message: "swtpm could not be started: errno \(status)") }
        pid = child
        for _ in 0..<500 {
            // The socket file appears at bind(), before swtpm listens: wait until it accepts.
            if Self.accepts(d + "/s") { return }
            var exitStatus: Int32 = 0
            if waitpid(child, &exitStatus, WNOHANG) == child {
                pid = 0
                let log = (try? String(contentsOfFile: d + "/swtpm.log", encoding: .utf8)) ?? ""
                throw SoftwareTPMError(message: "swtpm exited at start: \(log)")
            }
            usleep(10_000)
        }
        stop()
        throw SoftwareTPMError(message: "swtpm did not open its socket within 5 s")
    }

    /// Whether a Unix socket at `path` accepts a connection (closed again at once).
    private static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// Stops the simulator and waits until its process is gone.
    public func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var exitStatus: Int32 = 0
        var reaped = false
        for _ in 0..<200 {
            if waitpid(pid, &exitStatus, WNOHANG) == pid {
                reaped = true
                break
            }
            usleep(10_000)
        }
        if !reaped {
            kill(pid, SIGKILL)
            waitpid(pid, &exitStatus, 0)
        }
        pid = 0
        try? FileManager.default.removeItem(atPath: directory + "/s")
    }

    deinit { stop() }

    /// Runs a tpm2-tools command (`tpm2_pcrextend`, `tpm2_clear`, ...) against this TPM.
    @discardableResult
    public func tool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try Self.run(
            "/usr/bin/" + name,
            arguments,
            environment: ["PATH": "/usr/bin:/bin", "TPM2TOOLS_TCTI": tcti, "TSS2_LOG": "all+NONE"]
        )
    }

    private static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws
        -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// swtpm could not be started.
public struct SoftwareTPMError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
