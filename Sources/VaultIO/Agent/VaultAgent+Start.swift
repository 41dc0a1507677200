// vault agent: starting an agent in a process of its own, and waiting until it answers.

import Glibc

extension VaultAgent {
    /// Whether an agent answers at ``socketPath`` now.
    public var isAnswering: Bool { (try? status()) != nil }

    /// Runs `command` as an agent in a new session, and waits until it answers at ``socketPath``.
    ///
    /// `command` must serve as the agent at ``socketPath`` (`vaulttool` runs itself as
    /// `agent --foreground --socket <path>`); it is started in a session of its own, so that it
    /// outlives the terminal, with its standard input, output and error on `/dev/null`. The
    /// socket's directory is prepared first (``prepareSocketDirectory()``), so that a directory
    /// someone else made is reported here, by name, rather than by a process that cannot say so.
    /// Waits at most 5 seconds.
    ///
    /// ```swift
    /// let agent = VaultAgent(socketPath: VaultAgent.defaultSocketPath())
    /// if !agent.isAnswering { try agent.startInBackground(command: ["/usr/bin/vaulttool", "agent", "--foreground"]) }
    /// ```
    ///
    /// Spec: Spec/agent.md, section 2.
    ///
    /// - Parameter command: The program's absolute path, then its arguments.
    /// - Throws: `system` (`EPERM`) from ``prepareSocketDirectory()``; ``VaultIOError/Code/agentNotStarted``
    ///   when the program cannot be started (with its ``VaultIOError/errno``), exits, or does not
    ///   answer in time. The corresponding C function is `posix_spawn`.
    public func startInBackground(command: [String]) throws {
        try prepareSocketDirectory()
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID: outlive the terminal
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions,
                descriptor,
                "/dev/null",
                descriptor == 0 ? O_RDONLY : O_WRONLY,
                0
            )
        }
        var argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, command[0], &actions, &attributes, &argv, environ)
        guard result == 0 else {
            throw VaultIOError(
                .agentNotStarted,
                operation: "posix_spawn",
                errno: Errno(rawValue: result),
                path: command[0],
                reason: "cannot start the agent: \(String(cString: strerror(result)))"
            )
        }
        for _ in 0..<50 {
            if isAnswering { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw VaultIOError(
                    .agentNotStarted,
                    path: socketPath,
                    reason: "the agent did not start (is one already running on \(socketPath)?)"
                )
            }
            usleep(100_000)
        }
        throw VaultIOError(
            .agentNotStarted,
            path: socketPath,
            reason: "the agent did not answer on \(socketPath) within 5 seconds"
        )
    }
}
