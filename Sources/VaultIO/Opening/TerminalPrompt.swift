// vault: asking for a secret on the controlling terminal, with echo off.

import Glibc

extension CredentialSources {
    /// Asks on the controlling terminal (`/dev/tty`) with echo turned off: the ``Prompt`` a
    /// command-line program gives ``prompt``.
    ///
    /// The prompt text goes to the terminal, never to standard output, so that a command's output
    /// stays clean. Echo is restored before this returns, and also when `SIGINT`, `SIGTERM`,
    /// `SIGHUP` or `SIGQUIT` interrupts the prompt: the signal's previous action is then put back
    /// and the signal raised again. A line is at most 4,096 bytes; it is read into memory reserved
    /// for that many, so that no copy of a password is left behind by a reallocation.
    ///
    /// ```swift
    /// let sources = CredentialSources(prompt: CredentialSources.terminalPrompt)
    /// let credentials = try sources.credentials()  // asks "Password: " on the terminal
    /// ```
    ///
    /// Returns the line without its newline (and without a carriage return before it), or `nil`
    /// when the process has no controlling terminal. Throws ``VaultIOError/Code/unreadableInput``
    /// when reading fails or the line is longer than 4,096 bytes. The corresponding C functions
    /// are `tcgetattr` and `tcsetattr`.
    public static let terminalPrompt: Prompt = { text in try TerminalPrompt.readHidden(prompt: text) }
}

/// The controlling terminal, read with echo off; see ``CredentialSources/terminalPrompt``.
enum TerminalPrompt {
    /// The longest line read.
    static let maximumLineByteCount = 4096

    static func readHidden(prompt: String) throws(VaultIOError) -> [UInt8]? {
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
        line.reserveCapacity(maximumLineByteCount)
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count < 0 || line.count == maximumLineByteCount {
                let reason = count < 0 ? String(cString: strerror(errno)) : "line too long"
                SecretMemory.wipe(&line)
                throw VaultIOError(
                    .unreadableInput,
                    path: "/dev/tty",
                    reason: "cannot read from the terminal: \(reason)"
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

/// Restores terminal echo if a signal interrupts a hidden prompt, then lets the signal act as it
/// would have.
private enum EchoGuard {
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    nonisolated(unsafe) static var descriptor: Int32 = -1
    nonisolated(unsafe) static var saved = termios()
    /// The actions the signals had before the prompt, by signal number (each of them is below 32).
    nonisolated(unsafe) static var previous: [Glibc.sigaction] = Array(repeating: Glibc.sigaction(), count: 32)

    static func arm(_ descriptor: Int32, _ saved: termios) {
        Self.saved = saved
        Self.descriptor = descriptor
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if EchoGuard.descriptor >= 0 { _ = tcsetattr(EchoGuard.descriptor, TCSANOW, &EchoGuard.saved) }
            _ = sigaction(signal, &EchoGuard.previous[Int(signal)], nil)
            raise(signal)
        }
        for signal in signals { _ = sigaction(signal, &action, &previous[Int(signal)]) }
    }

    static func disarm() {
        descriptor = -1
        for signal in signals { _ = sigaction(signal, &previous[Int(signal)], nil) }
    }
}
