// vault: running a helper program (git) and collecting what it prints, without Foundation's Process.

import Glibc

/// One run of a program found on PATH, never through a shell: standard input `/dev/null`,
/// standard output and standard error collected.
struct Subprocess {
    /// The exit status; 127 when the program could not be started; 128 + n after signal n.
    var status: Int32
    var output: [UInt8]
    var error: [UInt8]

    /// Runs `arguments[0]` with `arguments` as its argv.
    ///
    /// - Throws: ``VaultDeliveryError/Code/system`` when no pipe can be made.
    static func run(_ arguments: [String]) throws(VaultDeliveryError) -> Subprocess {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw VaultDeliveryError(.system, "cannot make a pipe") }
        defer { outPipe.forEach { if $0 >= 0 { close($0) } } }
        guard pipe(&errPipe) == 0 else { throw VaultDeliveryError(.system, "cannot make a pipe") }
        defer { errPipe.forEach { if $0 >= 0 { close($0) } } }
        // Not inherited by anything else this process starts (the child gets them through dup2).
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        (outPipe[1], errPipe[1]) = (-1, -1)
        guard spawned == 0 else { return Subprocess(status: 127, output: [], error: []) }
        var result = Subprocess(status: 0, output: [], error: [])
        var open = [outPipe[0], errPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for fd in fds where fd.revents != 0 {
                let n = read(fd.fd, &buffer, buffer.count)
                if n > 0 {
                    if fd.fd == outPipe[0] { result.output += buffer[..<n] } else { result.error += buffer[..<n] }
                } else if n == 0 || errno != EINTR {
                    open.removeAll { $0 == fd.fd }
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        result.status = exitStatus(status)
        return result
    }

    /// A shell's reading of a `waitpid` status: the exit status, or 128 + N after signal N.
    static func exitStatus(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)  // WIFEXITED, WEXITSTATUS, WTERMSIG
    }
}
