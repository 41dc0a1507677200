// vault agent: Unix-socket plumbing shared by the agent and its clients.

internal import CVaultSys
import Glibc

/// A connected or listening Unix stream socket, closed on `deinit`.
///
/// Spec: Spec/agent.md, "Socket".
package final class AgentSocket {
    package let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }

    /// Why a socket call failed: the step and `errno`. Never carries a message body.
    package struct Failure: Error, CustomStringConvertible {
        package let step: String
        package let code: Int32
        package var description: String { "\(step): \(Errno(rawValue: code))" }
    }

    // MARK: - Paths

    /// The default socket: `$XDG_RUNTIME_DIR/vault-agent/agent.sock`, else
    /// `/tmp/vault-agent-<uid>/agent.sock`.
    package static func defaultPath(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return runtime + "/vault-agent/agent.sock"
        }
        return "/tmp/vault-agent-\(getuid())/agent.sock"
    }

    /// Creates the socket's directory with mode 0700, or checks an existing one: it must be
    /// a directory owned by this user that no one else can enter.
    package static func prepareDirectory(of path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard !directory.isEmpty else { throw Failure(step: "socket directory", code: EINVAL) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw Failure(step: "mkdir \(directory)", code: errno)
        }
        var status = stat()
        guard lstat(directory, &status) == 0 else { throw Failure(step: "stat \(directory)", code: errno) }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
            let isDirectory = status.st_mode & S_IFMT == S_IFDIR
            let found =
                "\(isDirectory ? "a directory" : "not a directory") of user \(status.st_uid), "
                + "mode \(String(status.st_mode & 0o7777, radix: 8))"
            let remedy =
                status.st_uid == getuid() && isDirectory
                ? "chmod 700 it"
                : "another user made it first: choose another socket with --socket, or set XDG_RUNTIME_DIR"
            throw Failure(
                step: "\(directory) must be a directory of this user with mode 0700 and is \(found) (\(remedy))",
                code: EPERM
            )
        }
    }

    // MARK: - Listening and connecting

    /// Binds and listens on `path`, replacing a stale socket that no agent answers on.
    package static func listen(at path: String) throws -> AgentSocket {
        try prepareDirectory(of: path)
        if let existing = try? connect(to: path) {
            _ = existing
            throw Failure(step: "an agent already listens on \(path)", code: EADDRINUSE)
        }
        unlink(path)
        let socket = try make()
        var address = try self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw Failure(step: "bind \(path)", code: errno) }
        chmod(path, 0o600)
        guard Glibc.listen(socket.descriptor, 16) == 0 else { throw Failure(step: "listen", code: errno) }
        return socket
    }

    /// The listening socket systemd passed to this process (socket activation: `LISTEN_PID` is
    /// this process and `LISTEN_FDS` is at least 1; the socket is descriptor 3), or `nil`.
    ///
    /// - Throws: When descriptor 3 is not a socket.
    package static func inherited(environment: [String: String]) throws -> AgentSocket? {
        do {
            return try SocketActivation.inheritedListener(environment: environment).map { AgentSocket(descriptor: $0) }
        } catch {
            throw Failure(step: "LISTEN_FDS: descriptor 3 is not a socket", code: ENOTSOCK)
        }
    }

    /// Connects to the agent at `path` and checks that it runs as this user.
    package static func connect(to path: String) throws -> AgentSocket {
        let socket = try make()
        var address = try self.address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw Failure(step: "connect \(path)", code: errno) }
        try socket.requireSameUser()
        socket.setTimeout(seconds: 5)
        return socket
    }

    /// Accepts one connection; `nil` when interrupted or when the peer is another user
    /// (that connection is closed at once, unread).
    package func accept() -> AgentSocket? {
        let descriptor = Glibc.accept(self.descriptor, nil, nil)
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let peer = AgentSocket(descriptor: descriptor)
        guard (try? peer.requireSameUser()) != nil else { return nil }
        peer.setTimeout(seconds: 2)
        return peer
    }

    /// Refuses a peer whose user ID (SO_PEERCRED) is not this process's.
    func requireSameUser() throws {
        var uid: UInt32 = 0
        guard vault_peer_uid(descriptor, &uid) == 0 else { throw Failure(step: "SO_PEERCRED", code: errno) }
        guard uid == getuid() else { throw Failure(step: "the peer is user \(uid)", code: EPERM) }
    }

    /// Waits up to `milliseconds` for a connection; `false` on timeout.
    package func waitForConnection(milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    // MARK: - Messages

    /// Sends one message; without `waiting`, fails instead of blocking when the peer's buffer is full.
    package func send(_ message: AgentMessage, waiting: Bool = true) throws {
        var frame = message.encodeFrame()
        defer { wipe(&frame) }
        var sent = 0
        while sent < frame.count {
            let count = frame.withUnsafeBytes {
                Glibc.send(
                    descriptor,
                    $0.baseAddress! + sent,
                    $0.count - sent,
                    Int32(MSG_NOSIGNAL) | (waiting ? 0 : Int32(MSG_DONTWAIT))
                )
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(step: "send", code: errno) }
            sent += count
        }
    }

    /// Receives one message; throws on a malformed frame or a timeout.
    package func receive() throws -> AgentMessage {
        let count = try AgentMessage.bodyCount(prefix: try read(4))
        var body = try read(count)
        defer { wipe(&body) }
        return try AgentMessage.decode(body: body)
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let got = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress! + received, count - received, 0)
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw Failure(step: "receive", code: got == 0 ? ECONNRESET : errno) }
            received += got
        }
        return buffer
    }

    // MARK: - Setup

    private static func make() throws -> AgentSocket {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(step: "socket", code: errno) }
        return AgentSocket(descriptor: descriptor)
    }

    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw Failure(step: "socket path longer than \(capacity - 1) bytes", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return address
    }

    private func setTimeout(seconds: Int) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, size)
    }
}
