// vault agent: the wire format and the key store, without spawning processes.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Agent protocol")
struct AgentMessageTests {
    @Test func roundTrips_everyRequestAndReply() throws {
        let messages = [
            AgentMessage(.add, [Array("/v".utf8), [1, 2], [], Array(repeating: 7, count: 32), []]),
            AgentMessage(.keys, [Array("/v".utf8), [1, 2]]),
            AgentMessage(.lock, [[]]),
            AgentMessage(.status),
            AgentMessage(.vaults, [Array("/a".utf8), AgentMessage.bigEndian(UInt64(5))]),
            AgentMessage(.refused, [Array("no".utf8)]),
        ]
        for message in messages {
            let frame = message.encodeFrame()
            let count = try AgentMessage.bodyCount(prefix: Array(frame.prefix(4)))
            #expect(count == frame.count - 4)
            #expect(try AgentMessage.decode(body: Array(frame.dropFirst(4))) == message)
        }
    }

    @Test func rejects_malformedBodies() {
        let keys = AgentMessage(.keys, [Array("/v".utf8), [1]]).encodeBody()
        #expect(throws: AgentMessage.DecodeError.wrongVersion(2)) {
            try AgentMessage.decode(body: [2] + keys.dropFirst())
        }
        #expect(throws: AgentMessage.DecodeError.unknownType(0x7F)) { try AgentMessage.decode(body: [1, 0x7F]) }
        #expect(throws: AgentMessage.DecodeError.truncatedField) { try AgentMessage.decode(body: keys.dropLast()) }
        #expect(throws: AgentMessage.DecodeError.wrongFieldCount) { try AgentMessage.decode(body: [1, 0x02]) }
        #expect(throws: AgentMessage.DecodeError.wrongFieldCount) {
            try AgentMessage.decode(body: AgentMessage(.vaults, [[1]]).encodeBody())
        }
        #expect(throws: AgentMessage.DecodeError.empty) { try AgentMessage.bodyCount(prefix: [0, 0, 0, 0]) }
        #expect(throws: AgentMessage.DecodeError.tooLong) { try AgentMessage.bodyCount(prefix: [0, 1, 0, 1]) }
    }

    /// Random bodies either decode to a message that re-encodes to the same bytes, or throw.
    @Test func randomBodies_neverCrash_andDecodeCanonically() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            var body = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if count > 1, Bool.random(using: &generator) { body[0] = 1 }
            if let message = try? AgentMessage.decode(body: body) {
                #expect(message.encodeBody() == body)
            }
        }
    }
}

@Suite("Agent key store")
struct AgentServerTests {
    private func withServer<R>(
        idle: Duration? = .seconds(600),
        life: Duration? = .seconds(7200),
        _ body: (AgentServer, String) throws -> R
    ) throws -> R {
        try withTemporaryDirectory { directory in
            let server = try AgentServer(
                listeningAt: directory + "/agent/agent.sock",
                limits: .init(idleTimeout: idle, maximumLifetime: life)
            )
            return try body(server, directory)
        }
    }

    private func add(_ server: AgentServer, path: String, id: [UInt8], at now: ContinuousClock.Instant) {
        let base = Array(repeating: UInt8(9), count: 32)
        let reply = server.handle(AgentMessage(.add, [Array(path.utf8), id, [], base, []]), now: now)
        #expect(reply.type == .ok)
    }

    @Test func handsKeysOnly_forTheSamePathAndVaultID() throws {
        try withServer { server, _ in
            let now = ContinuousClock.now
            add(server, path: "/v.vault", id: [1, 2, 3], at: now)
            let hit = server.handle(AgentMessage(.keys, [Array("/v.vault".utf8), [1, 2, 3]]), now: now)
            #expect(hit.type == .keyMaterial)
            #expect(hit.fields[1] == Array(repeating: 9, count: 32))
            #expect(server.handle(AgentMessage(.keys, [Array("/v.vault".utf8), [9]]), now: now).type == .notHeld)
            #expect(
                server.handle(AgentMessage(.keys, [Array("/w.vault".utf8), [1, 2, 3]]), now: now).type == .notHeld
            )
        }
    }

    @Test func lock_dropsKeys() throws {
        try withServer { server, _ in
            let now = ContinuousClock.now
            add(server, path: "/a", id: [1], at: now)
            add(server, path: "/b", id: [2], at: now)
            let one = server.handle(AgentMessage(.lock, [Array("/a".utf8)]), now: now)
            #expect(AgentMessage.integer(one.fields[0]) == 1)
            #expect(server.handle(AgentMessage(.keys, [Array("/a".utf8), [1]]), now: now).type == .notHeld)
            #expect(server.handle(AgentMessage(.keys, [Array("/b".utf8), [2]]), now: now).type == .keyMaterial)
            let all = server.handle(AgentMessage(.lock, [[]]), now: now)
            #expect(AgentMessage.integer(all.fields[0]) == 1)
            #expect(server.handle(AgentMessage(.status), now: now).fields.isEmpty)
        }
    }

    @Test func idleTimeout_andLifetime_dropKeys() throws {
        try withServer(idle: .seconds(10), life: .seconds(25)) { server, _ in
            let start = ContinuousClock.now
            add(server, path: "/a", id: [1], at: start)
            // Used every 8 s, the keys outlive the idle timeout but not the lifetime.
            for step in 1...3 {
                let reply = server.handle(
                    AgentMessage(.keys, [Array("/a".utf8), [1]]),
                    now: start + .seconds(8 * step)
                )
                #expect(reply.type == .keyMaterial)
            }
            #expect(
                server.handle(AgentMessage(.keys, [Array("/a".utf8), [1]]), now: start + .seconds(26)).type == .notHeld
            )
            add(server, path: "/b", id: [2], at: start)
            #expect(
                server.handle(AgentMessage(.keys, [Array("/b".utf8), [2]]), now: start + .seconds(11)).type == .notHeld
            )
        }
    }

    @Test func refusesASocketDirectoryOthersCanEnter() throws {
        try withTemporaryDirectory { directory in
            let open = directory + "/open"
            mkdir(open, 0o755)
            chmod(open, 0o755)
            #expect(throws: AgentSocket.Failure.self) {
                _ = try AgentServer(
                    listeningAt: open + "/agent.sock",
                    limits: .init(idleTimeout: nil, maximumLifetime: nil)
                )
            }
        }
    }

    /// The keys the agent returns open the vault as the credentials did: no KDF.
    @Test func keysFromTheAgent_openTheVault() throws {
        try withServer { server, directory in
            let vault = try makeVault(in: directory)
            try vault.write { txn in try txn.set(makeDraft(service: "db")) }
            let snapshot = try VaultFileReader(path: vault.path).open(with: .password(testPassword))
            let keys = snapshot.keys
            let now = ContinuousClock.now
            let added = server.handle(
                AgentMessage(
                    .add,
                    [
                        Array(vault.path.utf8), snapshot.header.vaultID, keys.master?.secret.copyBytes() ?? [],
                        keys.base!.secret.copyBytes(), [],
                    ]
                ),
                now: now
            )
            #expect(added.type == .ok)
            let reply = server.handle(AgentMessage(.keys, [Array(vault.path.utf8), snapshot.header.vaultID]), now: now)
            let restored = VaultKeys.restoring(
                master: MasterKey(secret: SecretBytes(bytes: reply.fields[0])),
                base: BaseKey(secret: SecretBytes(bytes: reply.fields[1])),
                deviceSecret: nil,
                vaultID: snapshot.header.vaultID
            )
            let reopened = try Vault(path: vault.path, keys: restored, configuration: testConfiguration)
            #expect(try secret(in: reopened, service: "db") == "secret of db/alice")
        }
    }
}
