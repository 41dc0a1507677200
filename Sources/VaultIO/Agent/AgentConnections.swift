// vault agent: the connections the agent is reading a request from, each with one deadline.

import Glibc

/// The agent's open connections: each is read without blocking until its whole request has
/// arrived, and dropped when it has not by its deadline (one per request, not per `recv`), so a
/// peer that trickles bytes holds nothing up. Past ``maximumCount`` the oldest is dropped, so
/// idle peers cannot keep `lock` or `status` from being answered.
///
/// Spec: Spec/agent.md, section 2.
struct AgentConnections {
    /// Connections read at once; a new one past this closes the oldest.
    static let maximumCount = 64
    /// How long a peer has, from `accept`, to deliver its whole request.
    static let requestDeadline: Duration = .seconds(2)

    private struct Connection {
        let socket: AgentSocket
        let deadline: ContinuousClock.Instant
        var received: [UInt8] = []
        var bodyCount: Int? = nil
    }

    private var open: [Connection] = []

    /// Adds an accepted peer, closing the oldest connection when the table is full.
    mutating func add(_ socket: AgentSocket, now: ContinuousClock.Instant) {
        if open.count >= Self.maximumCount { drop(at: 0) }
        open.append(Connection(socket: socket, deadline: now + Self.requestDeadline))
    }

    /// `pollfd`s for the open connections, in order.
    var pollDescriptors: [pollfd] {
        open.map { pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0) }
    }

    /// Milliseconds until the nearest deadline, at most `ceiling`.
    func millisecondsToNextDeadline(now: ContinuousClock.Instant, ceiling: Int32) -> Int32 {
        guard let nearest = open.map(\.deadline).min() else { return ceiling }
        let left = nearest - now
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(Int64(ceiling), milliseconds + 1)))
    }

    /// Reads what the connections that `ready` marks readable have sent; returns each connection
    /// whose request is complete (removed from the table) with its body. Connections that fail,
    /// send a malformed length or pass their deadline are closed.
    mutating func collect(ready: [pollfd], now: ContinuousClock.Instant) -> [(socket: AgentSocket, body: [UInt8])] {
        var complete: [(socket: AgentSocket, body: [UInt8])] = []
        var index = 0
        var position = 0
        while index < open.count {
            let readable = position < ready.count && ready[position].revents != 0
            position += 1
            if readable {
                switch read(at: index) {
                case .waiting: break
                case .failed:
                    drop(at: index)
                    continue
                case .complete(let body):
                    complete.append((open[index].socket, body))
                    open.remove(at: index)
                    continue
                }
            }
            if open[index].deadline <= now {
                drop(at: index)
                continue
            }
            index += 1
        }
        return complete
    }

    private enum ReadResult {
        case waiting, failed
        case complete([UInt8])
    }

    /// Reads without blocking what connection `index` has sent.
    private mutating func read(at index: Int) -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { wipe(&chunk) }
        while true {
            let wanted = (open[index].bodyCount.map { $0 + 4 } ?? 4) - open[index].received.count
            let got = chunk.withUnsafeMutableBytes {
                recv(open[index].socket.descriptor, $0.baseAddress!, min(wanted, $0.count), Int32(MSG_DONTWAIT))
            }
            if got < 0 && errno == EINTR { continue }
            if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .waiting }
            guard got > 0 else { return .failed }
            // After the prefix, the capacity holds the whole frame: appends never reallocate, so
            // a request that carries keys leaves no unwiped old allocation behind.
            open[index].received.append(contentsOf: chunk[..<got])
            if open[index].bodyCount == nil, open[index].received.count == 4 {
                guard let count = try? AgentMessage.bodyCount(prefix: open[index].received) else { return .failed }
                open[index].bodyCount = count
                open[index].received.reserveCapacity(4 + count)
            }
            if let count = open[index].bodyCount, open[index].received.count == 4 + count {
                let body = Array(open[index].received[4...])
                wipe(&open[index].received)
                return .complete(body)
            }
        }
    }

    private mutating func drop(at index: Int) {
        wipe(&open[index].received)
        open.remove(at: index)
    }

}
