// vault agent: what commands ask the agent, and how keys travel.

import Glibc
import VaultFormat

/// A client of the vault agent at one socket path.
///
/// Spec: Spec/agent.md, section 3.
package struct AgentClient {
    package let socketPath: String

    package init(socketPath: String) { self.socketPath = socketPath }

    /// What went wrong talking to the agent.
    package struct Refused: Error, CustomStringConvertible {
        package let description: String
    }

    /// Hands the keys of `vault` (opened with credentials) to the agent.
    package func add(_ vault: VaultSnapshot, path: String) throws {
        try add(vault.keys, vaultID: vault.header.vaultID, path: path)
    }

    /// Hands `keys` of the vault `vaultID` at the resolved `path` to the agent.
    package func add(_ keys: VaultKeys, vaultID: [UInt8], path: String) throws {
        // A limited recipient (format 2.0) holds no base key; the agent protocol carries base keys.
        guard let base = keys.base else {
            throw Refused(
                description: "the agent holds keys of a whole vault; a limited recipient's keys are not handed to it"
            )
        }
        var request = AgentMessage(
            .add,
            [
                Array(path.utf8), vaultID, keys.master?.secret.copyBytes() ?? [],
                base.secret.copyBytes(), keys.deviceSecret?.secret.copyBytes() ?? [],
            ]
        )
        defer { request.wipe() }
        _ = try exchange(request, expecting: .ok)
    }

    /// The keys the agent holds for the vault at the resolved `path` with `vaultID`, or `nil`.
    package func keys(path: String, vaultID: [UInt8]) throws -> VaultKeys? {
        var reply = try exchange(AgentMessage(.keys, [Array(path.utf8), vaultID]), expecting: .keyMaterial)
        defer { reply.wipe() }
        guard reply.type == .keyMaterial else { return nil }
        // Read through `reply` itself: a second reference to its fields would make the wipe copy
        // them and leave the keys in the original buffers.
        guard reply.fields[1].count == 32, [0, 32].contains(reply.fields[0].count),
            [0, 32].contains(reply.fields[2].count)
        else {
            throw Refused(description: "the agent sent malformed keys")
        }
        func guarded(_ index: Int) -> SecretBytes { SecretBytes(bytes: reply.fields[index], protection: .guarded) }
        return VaultKeys.restoring(
            master: reply.fields[0].isEmpty ? nil : MasterKey(secret: guarded(0)),
            base: BaseKey(secret: guarded(1)),
            deviceSecret: reply.fields[2].isEmpty ? nil : DeviceSecret(secret: guarded(2)),
            vaultID: vaultID
        )
    }

    /// Drops the keys of `path` (every vault when `nil`); returns how many were dropped.
    package func lock(path: String?) throws -> Int {
        let reply = try exchange(AgentMessage(.lock, [Array((path ?? "").utf8)]), expecting: .ok)
        return Int(AgentMessage.integer(reply.fields[0]) ?? 0)
    }

    /// The vaults held, with the seconds until each is dropped (`nil`: no limit).
    package func status() throws -> [(path: String, secondsLeft: UInt64?)] {
        let reply = try exchange(AgentMessage(.status), expecting: .vaults)
        return stride(from: 0, to: reply.fields.count, by: 2).map { index in
            let left = AgentMessage.integer(reply.fields[index + 1]) ?? .max
            return (String(decoding: reply.fields[index], as: UTF8.self), left == .max ? nil : left)
        }
    }

    /// Asks the agent to drop every key and exit.
    package func stop() throws {
        _ = try exchange(AgentMessage(.stop), expecting: .ok)
    }

    private func exchange(_ request: AgentMessage, expecting: AgentMessage.MessageType) throws -> AgentMessage {
        let socket = try AgentSocket.connect(to: socketPath)
        try socket.send(request)
        let reply = try socket.receive()
        switch reply.type {
        case expecting, .notHeld: return reply
        case .refused:
            throw Refused(description: "the agent refused: \(String(decoding: reply.fields[0], as: UTF8.self))")
        default: throw Refused(description: "the agent sent an unexpected reply")
        }
    }
}
