// vault: a raw Unix-socket peer, for tests that play a client that sends part of a frame, or nothing.

import Glibc

/// A socket connected to `socketPath` that has sent `prefix` and then nothing: a peer that
/// stays silent, or trickles a request, in the agent's tests (VaultIO's and vaulttool's).
///
/// - Returns: The connected descriptor; the caller closes it.
/// - Throws: ``PeerSocketError`` when the socket cannot be made or connected.
public func connectedPeer(to socketPath: String, sending prefix: [UInt8] = []) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw PeerSocketError(path: socketPath, errno: errno) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else {
        let error = PeerSocketError(path: socketPath, errno: errno)
        close(descriptor)
        throw error
    }
    if !prefix.isEmpty { _ = prefix.withUnsafeBytes { send(descriptor, $0.baseAddress!, $0.count, 0) } }
    return descriptor
}

/// A peer socket that could not connect.
public struct PeerSocketError: Error, CustomStringConvertible {
    /// The socket path.
    public let path: String
    /// The error number of `socket` or `connect`.
    public let errno: Int32

    public var description: String { "cannot connect to \(path): \(String(cString: strerror(errno)))" }
}
