// vaulttool: the controlling terminal: prompts without echo, and what is a terminal.

import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import VaultIO

/// The terminal, for prompts that must not echo and for deciding when to show progress.
enum Terminal {
    /// Whether `descriptor` is a terminal.
    ///
    /// The corresponding C function is `isatty`.
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// Asks for a line on the controlling terminal (`/dev/tty`) with echo turned off.
    ///
    /// The prompt goes to the terminal, never to stdout, so that `get`'s output stays
    /// clean. Echo is restored before returning, and also when Ctrl-C interrupts the prompt.
    ///
    /// - Returns: The line's bytes without the newline, or `nil` when there is no terminal.
    /// - Throws: ``ToolError`` when reading fails.
    static func readHidden(prompt: String) throws -> [UInt8]? {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var saved = termios()
        let canHide = tcgetattr(descriptor, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ICANON)
            EchoGuard.arm(descriptor, saved)
            _ = tcsetattr(descriptor, TCSANOW, &quiet)
        }
        defer {
            if canHide {
                _ = tcsetattr(descriptor, TCSANOW, &saved)
                EchoGuard.disarm()
            }
        }
        write(descriptor, prompt)
        // Room for any line a person types, so that appending never reallocates (a reallocation
        // would leave a copy of the password in freed memory); longer input is refused.
        var line = [UInt8]()
        line.reserveCapacity(4096)
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count < 0 || line.count == 4096 {
                SecretMemory.wipe(&line)
                throw ToolError(
                    "cannot read from the terminal: \(count < 0 ? String(cString: strerror(errno)) : "line too long")"
                )
            }
            if count == 0 || byte == 0x0A { break }
            line.append(byte)
        }
        byte = 0
        if line.last == 0x0D { line.removeLast() }
        write(descriptor, "\n")
        return line
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(descriptor, &bytes, bytes.count)
    }
}

/// Restores terminal echo if the user interrupts a hidden prompt.
private enum EchoGuard {
    nonisolated(unsafe) static var descriptor: Int32 = -1
    nonisolated(unsafe) static var saved = termios()

    static func arm(_ descriptor: Int32, _ saved: termios) {
        Self.saved = saved
        Self.descriptor = descriptor
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(sig) { sig in
                if EchoGuard.descriptor >= 0 { _ = tcsetattr(EchoGuard.descriptor, TCSANOW, &EchoGuard.saved) }
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }

    static func disarm() {
        descriptor = -1
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(sig, SIG_DFL) }
    }
}

/// Reports a slow step on stderr, only when stderr is a terminal and the step
/// takes longer than about a third of a second.
final class Progress: Sendable {
    /// Whether the label was shown, and whether the step finished.
    private let state = Mutex((shown: false, finished: false))

    /// The delay before a step is shown.
    static let delay: DispatchTimeInterval = .milliseconds(300)

    /// Runs `body`, printing `label…` on stderr if it is still running after ``delay``.
    static func run<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        guard Terminal.isTerminal(STDERR_FILENO) else { return try body() }
        let progress = Progress()
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { progress.show(label) }
        defer { progress.finish() }
        return try body()
    }

    private func show(_ label: String) {
        state.withLock { state in
            guard !state.finished else { return }
            state.shown = true
            Output.err("\(label)…")
        }
    }

    private func finish() {
        state.withLock { state in
            state.finished = true
            if state.shown { Output.err("\r\u{1B}[K") }
        }
    }
}
