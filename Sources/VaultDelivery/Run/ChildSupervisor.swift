// vault: a child run under supervision: its output relayed through the masker, signals forwarded.

import CVaultRun
import Glibc

/// Runs a ``ChildProgram`` under supervision: its output goes through ``OutputMasker``, signals
/// are forwarded, and its exit status is returned.
///
/// Standard output and standard error of the child are pipes, or, for those of this process that
/// are terminals, one pseudo-terminal whose session the child leads, so colours and line editing
/// survive. For the time of the run, the ``ChildProgram/forwardedSignals``, `SIGWINCH` and
/// `SIGCHLD` are handled by a relay and `SIGPIPE` is ignored; a signal this process ignores
/// stays ignored (`nohup` keeps working).
///
/// Spec: Spec/cli.md, "run" (Masking, Signals).
public struct ChildSupervisor {
    private let program: ChildProgram
    private let secrets: [[UInt8]]

    /// Supervises `program`, masking every form of each of `secrets` in its output (``OutputMasker``).
    public init(_ program: ChildProgram, secrets: [[UInt8]]) {
        self.program = program
        self.secrets = secrets
    }

    /// One output of the child: where it is read, where it goes, and its masker.
    private struct Stream {
        var readFD: Int32
        var target: Int32
        var masker: OutputMasker
        var isTerminal: Bool
        var open = true
    }

    /// Starts the child and relays until it has exited and its output has ended.
    ///
    /// - Returns: The child's exit status, or 128 + N when signal N killed it.
    /// - Throws: ``VaultDeliveryError`` when a pipe, the pseudo-terminal or the signal relay cannot
    ///   be set up (``VaultDeliveryError/Code/system``), or the program cannot be executed.
    public func run() throws(VaultDeliveryError) -> Int32 {
        var signalPipe: [Int32] = [-1, -1]
        guard vault_run_pipe(&signalPipe, 1) == 0 else { throw Self.systemError("pipe") }
        defer {
            close(signalPipe[0])
            close(signalPipe[1])
        }
        var ignored = [Int32](repeating: 0, count: ChildProgram.forwardedSignals.count + 1)
        var signals = ChildProgram.forwardedSignals + [SIGWINCH]
        guard vault_run_signals_install(&signals, Int32(signals.count), signalPipe[1], &ignored) == 0 else {
            throw Self.systemError("sigaction")
        }

        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        let stderrIsTerminal = isatty(STDERR_FILENO) == 1
        let usesTerminal = stdoutIsTerminal || stderrIsTerminal
        // Our terminal's input is relayed only when we are its foreground process (a background
        // vaulttool would be stopped by SIGTTIN/SIGTTOU).
        let relaysInput =
            usesTerminal && isatty(STDIN_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp()

        var master: Int32 = -1
        var slave: Int32 = -1
        var closeAfterSpawn = [Int32]()
        var streams = [Stream]()
        var child = vault_run_child(
            path: nil,
            argv: nil,
            envp: nil,
            stdin_fd: -1,
            stdout_fd: -1,
            stderr_fd: -1,
            controlling_tty: -1
        )
        if usesTerminal {
            guard vault_run_openpty(stdoutIsTerminal ? STDOUT_FILENO : STDERR_FILENO, &master, &slave) == 0 else {
                throw Self.systemError("posix_openpt")
            }
            closeAfterSpawn.append(slave)
            child.controlling_tty = slave
            if relaysInput { child.stdin_fd = slave }
            streams.append(
                Stream(
                    readFD: master,
                    target: stdoutIsTerminal ? STDOUT_FILENO : STDERR_FILENO,
                    masker: OutputMasker(secrets: secrets),
                    isTerminal: true
                )
            )
        }
        for (descriptor, isTerminal) in [(STDOUT_FILENO, stdoutIsTerminal), (STDERR_FILENO, stderrIsTerminal)] {
            if isTerminal {
                if descriptor == STDOUT_FILENO { child.stdout_fd = slave } else { child.stderr_fd = slave }
                continue
            }
            var ends: [Int32] = [-1, -1]
            guard vault_run_pipe(&ends, 0) == 0 else { throw Self.systemError("pipe") }
            closeAfterSpawn.append(ends[1])
            if descriptor == STDOUT_FILENO { child.stdout_fd = ends[1] } else { child.stderr_fd = ends[1] }
            streams.append(
                Stream(readFD: ends[0], target: descriptor, masker: OutputMasker(secrets: secrets), isTerminal: false)
            )
        }
        defer {
            for index in streams.indices {
                if streams[index].open { close(streams[index].readFD) }
                streams[index].masker.wipe()
            }
        }

        var failure: Int32 = 0
        let pid: pid_t = program.withCStrings { argv, envp in
            program.path.withCString { path in
                child.path = path
                child.argv = UnsafePointer(argv)
                child.envp = UnsafePointer(envp)
                return vault_run_spawn(&child, &failure)
            }
        }
        for descriptor in closeAfterSpawn { close(descriptor) }
        guard pid > 0 else {
            throw ChildProgram.execFailure(program.showsPath ? program.path : program.arguments[0], failure)
        }

        if relaysInput {
            _ = vault_run_tty_raw(STDIN_FILENO)
        }
        defer { vault_run_tty_restore() }
        if master >= 0 { _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK) }

        var status: Int32?
        var input = [UInt8]()
        var inputOpen = relaysInput
        let inputLimit = 65536
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer { vault_run_wipe(&buffer, buffer.count) }

        func reap() {
            var raw: Int32 = 0
            if status == nil, waitpid(pid, &raw, WNOHANG) == pid { status = raw }
        }

        while true {
            reap()
            if status != nil {
                // The child has exited: a pseudo-terminal is drained (others may hold it open);
                // pipes are read to their end, as a shell's command substitution does.
                for index in streams.indices where streams[index].open && streams[index].isTerminal {
                    drain(&streams[index], &buffer)
                }
                if !streams.contains(where: \.open) { break }
            }
            var fds = [pollfd(fd: signalPipe[0], events: Int16(POLLIN), revents: 0)]
            var streamSlots = [Int]()
            for index in streams.indices where streams[index].open {
                fds.append(pollfd(fd: streams[index].readFD, events: Int16(POLLIN), revents: 0))
                streamSlots.append(index)
            }
            let inputSlot = inputOpen && input.count < inputLimit ? fds.count : -1
            if inputSlot >= 0 { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            let masterSlot = !input.isEmpty && master >= 0 ? fds.count : -1
            if masterSlot >= 0 { fds.append(pollfd(fd: master, events: Int16(POLLOUT), revents: 0)) }

            // SIGCHLD wakes the loop; the timeout is a second way to notice the exit, should a
            // signal be lost (the relay pipe full), once nothing else is left to wait for.
            let ready = poll(&fds, nfds_t(fds.count), streamSlots.isEmpty ? 200 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw Self.systemError("poll")
            }
            if fds[0].revents != 0 {
                handleSignals(signalPipe[0], pid: pid, usesTerminal: usesTerminal, master: master)
            }
            for (offset, index) in streamSlots.enumerated() where fds[offset + 1].revents != 0 {
                relay(&streams[index], &buffer)
            }
            if inputSlot >= 0 && fds[inputSlot].revents != 0 {
                let count = read(STDIN_FILENO, &buffer, min(buffer.count, inputLimit - input.count))
                if count > 0 {
                    input.append(contentsOf: buffer[0..<count])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    inputOpen = false
                }
            }
            if masterSlot >= 0 && fds[masterSlot].revents != 0 {
                let count = input.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
                if count > 0 {
                    input.removeFirst(count)
                } else if count < 0 && errno != EINTR && errno != EAGAIN {
                    input.removeAll()
                    inputOpen = false
                }
            }
        }
        guard let status else { return 1 }
        return Subprocess.exitStatus(status)
    }

    /// Reads what the signal handler wrote and forwards each signal to the child.
    ///
    /// Without a pseudo-terminal the child shares our process group, so SIGINT and SIGQUIT typed at
    /// the terminal (sent by the kernel, `SI_KERNEL`) have reached it already and are not sent twice.
    private func handleSignals(_ descriptor: Int32, pid: pid_t, usesTerminal: Bool, master: Int32) {
        var message: [Int32] = [0, 0]
        while read(descriptor, &message, 8) == 8 {
            let (signal, code) = (message[0], message[1])
            switch signal {
            case SIGCHLD:
                continue
            case SIGWINCH:
                if master >= 0 {
                    _ = vault_run_copy_winsize(isatty(STDOUT_FILENO) == 1 ? STDOUT_FILENO : STDERR_FILENO, master)
                }
            default:
                if !usesTerminal && code == SI_KERNEL && (signal == SIGINT || signal == SIGQUIT) { continue }
                kill(pid, signal)
            }
        }
    }

    /// Reads once from `stream`, masks, and writes to its target; ends the stream at its end.
    private func relay(_ stream: inout Stream, _ buffer: inout [UInt8]) {
        let count = read(stream.readFD, &buffer, buffer.count)
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return }
        guard count > 0 else {
            // End of file, or EIO from a pseudo-terminal whose every slave is closed.
            end(&stream)
            return
        }
        let out = buffer.withUnsafeBytes { stream.masker.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        emit(&stream, out)
    }

    /// Reads everything `stream` (non-blocking) holds now, then ends it.
    private func drain(_ stream: inout Stream, _ buffer: inout [UInt8]) {
        while stream.open {
            let count = read(stream.readFD, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let out = buffer.withUnsafeBytes { stream.masker.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            emit(&stream, out)
        }
        if stream.open { end(&stream) }
    }

    private func end(_ stream: inout Stream) {
        let rest = stream.masker.finish()
        emit(&stream, rest)
        if stream.open { close(stream.readFD) }
        stream.open = false
    }

    /// Writes `bytes` to the stream's target. When the target is closed (EPIPE), the stream is
    /// closed too, so the child meets EPIPE or SIGPIPE itself, as it would writing there directly.
    private func emit(_ stream: inout Stream, _ bytes: [UInt8]) {
        var bytes = bytes
        defer { vault_run_wipe(&bytes, bytes.count) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(stream.target, $0.baseAddress! + offset, $0.count - offset) }
            if written >= 0 {
                offset += written
                continue
            }
            if errno == EINTR { continue }
            if errno == EAGAIN {
                var target = pollfd(fd: stream.target, events: Int16(POLLOUT), revents: 0)
                _ = poll(&target, 1, -1)
                continue
            }
            if stream.open { close(stream.readFD) }
            stream.open = false
            return
        }
    }

    private static func systemError(_ call: String) -> VaultDeliveryError {
        VaultDeliveryError(.system, "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))")
    }
}
