// vaulttool: what is a terminal, and progress shown on one.

import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import VaultIO

/// The terminal, for deciding when to show progress or end a secret with a newline (prompts are
/// VaultIO's ``CredentialSources/terminalPrompt``).
enum Terminal {
    /// Whether `descriptor` is a terminal.
    ///
    /// The corresponding C function is `isatty`.
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
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
