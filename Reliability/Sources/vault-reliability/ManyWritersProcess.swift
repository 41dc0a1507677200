// vault reliability, suite 11 (many writers): starting processes with files as stdin and output,
// waiting with a deadline, and the append-only acknowledgement logs the writers keep.

import Foundation
import Glibc

enum ManyProcess {
    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later), which Swift's Glibc module leaves out
    /// (it is declared under `_GNU_SOURCE`).
    static let spawnSetSID: Int16 = 0x80

    /// Starts `executable` with `arguments`, stdin read from `input`, stdout to `output` and stderr
    /// to `errors` (both created or truncated, mode 0600).
    ///
    /// With `newSession`, the process leads a session and a process group of its own: it has no
    /// controlling terminal (so `vaulttool` can never prompt) and `kill(-pid, SIGKILL)` also reaches
    /// the `vaulttool` it is running.
    static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        input: String = "/dev/null",
        output: String,
        errors: String? = nil,
        newSession: Bool = false
    ) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newSession { posix_spawnattr_setflags(&attributes, spawnSetSID) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        precondition(rc == 0, "posix_spawn \(executable): \(String(cString: strerror(rc)))")
        return pid
    }

    /// Waits for `pid`; returns its exit code, 128 + the signal that ended it, or `nil` when it
    /// still runs after `timeout` seconds.
    static func wait(_ pid: pid_t, timeout: Double = .infinity) -> CInt? {
        let deadline = now() + timeout
        while true {
            var status: CInt = 0
            let rc = waitpid(pid, &status, timeout.isInfinite ? 0 : WNOHANG)
            if rc == pid { return exitCode(status) }
            if rc == -1 && errno != EINTR { return -1 }
            if now() >= deadline { return nil }
            if rc == 0 { usleep(10_000) }
        }
    }

    /// The exit status, or 128 + the signal number for a process killed by a signal.
    static func exitCode(_ status: CInt) -> CInt {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// The environment the suite's processes get: this one's, without a password option's
    /// variable, an agent socket or a lock timeout of the caller's (the defaults are measured).
    static func environment(stateHome: String, agentSocket: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("VAULTTOOL_") && key != "VAULT_AGENT_SOCK"
        }
        environment["XDG_STATE_HOME"] = stateHome
        environment["VAULT_TESTING"] = "1"
        if let agentSocket { environment["VAULT_AGENT_SOCK"] = agentSocket }
        return environment
    }
}

/// A writer's append-only log: one line per event, each written with one `write` after the
/// event it records (an acknowledgement after the call returned).
struct AckLog {
    let fd: CInt

    init(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "open \(path): \(String(cString: strerror(errno)))")
    }

    func line(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The complete lines of a log (a line cut by a SIGKILL has no newline and is left out).
    static func lines(of path: String) -> [Substring] {
        guard let bytes = readBytes(path) else { return [] }
        let text = String(decoding: bytes, as: UTF8.self)
        let complete = text.hasSuffix("\n") ? Substring(text) : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
        return complete.split(separator: "\n")
    }
}

/// One line of text with no newline (a command's first line of stderr, for a log).
func firstLine(_ path: String) -> String {
    let text = String(decoding: readBytes(path) ?? [], as: UTF8.self)
    return String(text.split(separator: "\n").first ?? "").replacingOccurrences(of: "\t", with: " ")
}

/// A random value for a secret, unique in practice.
func randomValue() -> String { "v" + String(UInt64.random(in: .min ... .max), radix: 36) }
