// vault agent: the process that holds unlocked keys and hands them to the same user's commands.

import Glibc
import VaultFormat

/// The agent's loop: one connection at a time, keys dropped on `lock`, after the idle
/// timeout and at the end of their lifetime.
///
/// It never sees a password: `vaulttool unlock` runs the KDF and sends the keys a
/// keyslot wrapped. Connections from another user are closed unread (SO_PEERCRED).
///
/// Spec: Spec/agent.md.
package final class AgentServer {
    /// Keys held for one vault file.
    struct Entry {
        let vaultID: [UInt8]
        let master: SecretBytes?
        let base: SecretBytes
        let deviceSecret: SecretBytes?
        let added: ContinuousClock.Instant
        var lastUse: ContinuousClock.Instant
    }

    /// When keys are dropped: ``VaultAgent/Limits``, the public spelling.
    package typealias Limits = VaultAgent.Limits

    /// How many vaults the agent holds at most.
    static let maximumVaultCount = 32
    /// The longest vault path the agent holds, in UTF-8 bytes. With ``maximumVaultCount``, a
    /// `status` reply stays under 34 KiB, well inside one frame (65,536 bytes).
    static let maximumPathByteCount = 1024

    private let socket: AgentSocket
    package let path: String
    private let limits: Limits
    private var entries: [String: Entry] = [:]
    private var stopping = false

    /// Whether this server bound the socket file (and so removes it when it stops).
    private let ownsPath: Bool

    package init(listeningAt path: String, limits: Limits) throws {
        socket = try AgentSocket.listen(at: path)
        self.path = path
        self.limits = limits
        ownsPath = true
    }

    /// Serves on a socket already listening, such as one systemd passed (socket activation);
    /// `path` is only reported.
    package init(socket: AgentSocket, path: String, limits: Limits) {
        self.socket = socket
        self.path = path
        self.limits = limits
        ownsPath = false
    }

    deinit { if ownsPath { unlink(path) } }

    /// Serves until a `stop` request; drops expired keys between requests.
    ///
    /// Requests are read from up to ``AgentConnections/maximumCount`` peers at once, without
    /// blocking, and answered one at a time as each completes.
    package func run() {
        var connections = AgentConnections()
        while !stopping {
            dropExpired(now: .now)
            var descriptors = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)]
            descriptors += connections.pollDescriptors
            let wait = connections.millisecondsToNextDeadline(now: .now, ceiling: 500)
            let ready = poll(&descriptors, nfds_t(descriptors.count), wait)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            let now = ContinuousClock.now
            // Before accepting: the table must still match `descriptors`.
            var complete = connections.collect(ready: Array(descriptors.dropFirst()), now: now)
            for index in complete.indices {
                // The socket is read in a statement of its own: read as an argument beside
                // `&complete[index].body`, the whole element is copied and that copy's reference to
                // the body lives through the call, so the wipe in `answer` would overwrite a fresh
                // copy and leave the keys in the original buffer (Spec/agent.md, section 3).
                let peer = complete[index].socket
                if stopping { wipe(&complete[index].body) } else { answer(peer, &complete[index].body) }
            }
            if ready > 0 && descriptors[0].revents != 0, let peer = socket.accept() {
                connections.add(peer, now: now)
            }
        }
    }

    /// Decodes one complete request, answers it and wipes both; a malformed body is closed unanswered.
    private func answer(_ peer: AgentSocket, _ body: inout [UInt8]) {
        defer { wipe(&body) }
        guard var request = try? AgentMessage.decode(body: body) else { return }
        var reply = handle(request, now: .now)
        request.wipe()
        // A peer that does not read its reply cannot stall the others: the reply is small, and
        // one that does not fit the socket's buffer at once is dropped.
        try? peer.send(reply, waiting: false)
        reply.wipe()
    }

    /// Answers one request.
    package func handle(_ request: AgentMessage, now: ContinuousClock.Instant) -> AgentMessage {
        dropExpired(now: now)
        let fields = request.fields
        switch request.type {
        case .add:
            guard let path = String(validating: fields[0], as: UTF8.self), path.hasPrefix("/"),
                fields[3].count == 32, [0, 32].contains(fields[2].count), [0, 32].contains(fields[4].count)
            else { return refuse("malformed add request") }
            // Bounded, so that a status reply always fits one frame and no peer can exhaust
            // the guarded memory the keys live in.
            guard fields[0].count <= Self.maximumPathByteCount else {
                return refuse("the vault's path is longer than \(Self.maximumPathByteCount) bytes")
            }
            guard entries[path] != nil || entries.count < Self.maximumVaultCount else {
                return refuse("the agent holds \(Self.maximumVaultCount) vaults already; lock one first")
            }
            entries[path] = Entry(
                vaultID: fields[1],
                master: fields[2].isEmpty ? nil : SecretBytes(bytes: fields[2], protection: .guarded),
                base: SecretBytes(bytes: fields[3], protection: .guarded),
                deviceSecret: fields[4].isEmpty ? nil : SecretBytes(bytes: fields[4], protection: .guarded),
                added: now,
                lastUse: now
            )
            return AgentMessage(.ok, [AgentMessage.bigEndian(UInt32(1))])
        case .keys:
            guard let path = String(validating: fields[0], as: UTF8.self), var entry = entries[path],
                entry.vaultID == fields[1]
            else { return AgentMessage(.notHeld) }
            entry.lastUse = now
            entries[path] = entry
            return AgentMessage(
                .keyMaterial,
                [
                    entry.master?.copyBytes() ?? [], entry.base.copyBytes(), entry.deviceSecret?.copyBytes() ?? [],
                ]
            )
        case .lock:
            let count: Int
            if fields[0].isEmpty {
                count = entries.count
                entries.removeAll()
            } else {
                let path = String(decoding: fields[0], as: UTF8.self)
                count = entries.removeValue(forKey: path) == nil ? 0 : 1
            }
            return AgentMessage(.ok, [AgentMessage.bigEndian(UInt32(count))])
        case .status:
            var reply = AgentMessage(.vaults)
            for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
                let left = remaining(entry, now: now).map { UInt64($0.components.seconds) } ?? UInt64.max
                reply.fields += [Array(path.utf8), AgentMessage.bigEndian(left)]
            }
            return reply
        case .stop:
            let count = entries.count
            entries.removeAll()
            stopping = true
            return AgentMessage(.ok, [AgentMessage.bigEndian(UInt32(count))])
        default:
            return refuse("not a request")
        }
    }

    /// Time until `entry` is dropped, or `nil` when no limit applies.
    private func remaining(_ entry: Entry, now: ContinuousClock.Instant) -> Duration? {
        let idle = limits.idleTimeout.map { entry.lastUse + $0 - now }
        let life = limits.maximumLifetime.map { entry.added + $0 - now }
        switch (idle, life) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        default: return nil
        }
    }

    private func dropExpired(now: ContinuousClock.Instant) {
        for (path, entry) in entries {
            if let left = remaining(entry, now: now), left <= .zero { entries.removeValue(forKey: path) }
        }
    }

    private func refuse(_ reason: String) -> AgentMessage {
        AgentMessage(.refused, [Array(reason.utf8)])
    }
}
