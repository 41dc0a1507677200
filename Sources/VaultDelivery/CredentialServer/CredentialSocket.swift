// vault: the credential server's listening socket and the connections systemd makes to it.

import Glibc
import VaultIO

/// A Unix stream socket of `credential-server`, closed on `deinit`.
///
/// The calls are Glibc's: VaultIO's socket plumbing is the agent's and not public API. The
/// directory rule is the agent's own, through `VaultAgent.prepareSocketDirectory()`.
///
/// Spec: Spec/cli.md, 4.22 (socket); Spec/agent.md, section 7.3.
public final class CredentialSocket {
    /// The socket's descriptor, closed with the object.
    public let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }

    /// A failed call: the step and `errno`.
    public struct Failure: Error, CustomStringConvertible {
        /// The step: the call, or what was found in the way.
        public let step: String
        /// The `errno` value.
        public let code: Int32
        public var description: String { "\(step): \(String(cString: strerror(code)))" }
    }

    /// Runs `call` again while it fails with `EINTR`.
    private static func retrying(_ call: () -> Int) -> Int {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    // MARK: - Listening

    /// The listening socket systemd passed (socket activation: `LISTEN_PID` is this process and
    /// `LISTEN_FDS` at least 1; the socket is descriptor 3), or `nil`.
    public static func inherited(environment: [String: String]) throws -> CredentialSocket? {
        do {
            return try SocketActivation.inheritedListener(environment: environment).map {
                CredentialSocket(descriptor: $0)
            }
        } catch {
            throw Failure(step: "LISTEN_FDS: descriptor 3 is not a socket", code: ENOTSOCK)
        }
    }

    /// Listens on `path` as the agent does (Spec/agent.md, section 2): in a directory of this
    /// user with mode 0700 (created when missing), the socket mode 0600; a socket file that
    /// nobody answers on is replaced, one that answers is refused (`EADDRINUSE`), and anything
    /// that is not a socket is left alone (`EEXIST`).
    ///
    /// - Throws: ``Failure``, or the `VaultIOError` of the directory check.
    public static func listen(at path: String) throws -> CredentialSocket {
        guard !path.isEmpty, path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw Failure(step: "the socket path has more than 107 bytes", code: ENAMETOOLONG)
        }
        try VaultAgent(socketPath: path).prepareSocketDirectory()
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw Failure(step: "\(path) exists and is not a socket", code: EEXIST)
            }
            let probe = try make()
            if (try? probe.connect(to: path)) != nil {
                throw Failure(step: "a server already answers on \(path)", code: EADDRINUSE)
            }
            unlink(path)
        }
        let socket = try make()
        // The socket file is created with mode 0600 at once, never wider for a moment.
        let previous = umask(0o177)
        let bound = withAddress(Array(path.utf8)) { bind(socket.descriptor, $0, $1) }
        let bindError = errno
        umask(previous)
        guard bound == 0 else { throw Failure(step: "bind \(path)", code: bindError) }
        guard Glibc.listen(socket.descriptor, 16) == 0 else { throw Failure(step: "listen", code: errno) }
        return socket
    }

    /// Accepts one connection; `nil` when interrupted or when the connection went away first.
    ///
    /// - Throws: when the socket cannot accept at all (not listening, not a socket): serving
    ///   would otherwise spin on it.
    func accept() throws -> CredentialSocket? {
        let connection = Glibc.accept(descriptor, nil, nil)
        guard connection >= 0 else {
            switch errno {
            case EINTR, EAGAIN, ECONNABORTED, EPROTO: return nil
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                usleep(100_000)  // out of descriptors or memory for now: let others finish
                return nil
            default: throw Failure(step: "accept", code: errno)
            }
        }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        return CredentialSocket(descriptor: connection)
    }

    // MARK: - The peer

    /// The user ID of the process at the other end, taken at `connect`.
    ///
    /// The corresponding C call is `getsockopt(fd, SOL_SOCKET, SO_PEERCRED, …)`.
    func peerUserID() throws -> UInt32 {
        // struct ucred: pid, uid, gid (Linux <bits/socket.h>).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            throw Failure(step: "SO_PEERCRED", code: errno)
        }
        return credentials.uid
    }

    /// The address the peer is bound to: the `sun_path` bytes within the length `getpeername`
    /// returns (an abstract name starts with NUL), empty when the peer is not bound.
    ///
    /// The corresponding C function is `getpeername`.
    func peerAddress() throws -> [UInt8] {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard result == 0 else { throw Failure(step: "getpeername", code: errno) }
        let pathOffset = MemoryLayout<sa_family_t>.size
        let count = max(0, min(Int(length) - pathOffset, MemoryLayout.size(ofValue: address.sun_path)))
        return withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(count)) }
    }

    // MARK: - Writing

    /// Makes room in this socket's send queue for `count` bytes, so that a secret is queued whole
    /// whether or not the peer reads: on a Unix socket, bytes already queued stay readable after
    /// a close, so a secret sent in part would reach systemd as a cut credential followed by an
    /// ordinary end of file. `SO_SNDBUFFORCE` (root) lifts `net.core.wmem_max`; `SO_SNDBUF`
    /// otherwise.
    ///
    /// - Returns: Whether the queue can hold `count` bytes (the kernel reports twice the size it
    ///   was given, and uses the rest for its bookkeeping).
    func reserveSendQueue(for count: Int) -> Bool {
        var wanted = Int32(clamping: 4 * count + (64 << 10))
        let size = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(descriptor, SOL_SOCKET, SO_SNDBUFFORCE, &wanted, size) != 0 {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &wanted, size)
        }
        var actual: Int32 = 0
        var length = size
        guard getsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &actual, &length) == 0 else { return false }
        return Int(actual) >= 2 * count + (32 << 10)
    }

    /// Writes all of `bytes`, waiting for the peer to read until `deadline` at most.
    ///
    /// - Throws: ``Failure`` with `ETIMEDOUT` at the deadline, or the `send` error.
    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var sent = 0
        while sent < bytes.count {
            let count = Self.retrying {
                Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
                continue
            }
            guard count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else {
                throw Failure(step: "send", code: count == 0 ? EPIPE : errno)
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw Failure(step: "send", code: ETIMEDOUT) }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = Self.retrying { Int(poll(&poller, 1, Int32(clamping: max(1, milliseconds)))) }
        }
    }

    // MARK: - Setup

    private static func make() throws -> CredentialSocket {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(step: "socket", code: errno) }
        return CredentialSocket(descriptor: descriptor)
    }

    private func connect(to path: String) throws {
        let connected = Self.withAddress(Array(path.utf8)) { Glibc.connect(descriptor, $0, $1) }
        guard connected == 0 else { throw Failure(step: "connect \(path)", code: errno) }
    }

    /// Calls `body` with `path` as a `sockaddr_un` and its length.
    private static func withAddress<T>(_ path: [UInt8], _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // `listen` refuses a longer path; a connection only ever goes to the path that was bound.
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.prefix(capacity - 1)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
