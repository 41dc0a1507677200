// vault agent: slow and idle peers of the same user cannot hold up another client's request
// (Spec/agent.md, section 2), with the real server loop on a thread and real sockets.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO
import VaultTestSupport

@Suite("Agent peers")
struct AgentPeerTests {
    /// Runs `body` with an agent serving on a thread; stops it afterwards.
    private func withRunningAgent(_ body: (VaultAgent) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let agent = VaultAgent(socketPath: directory + "/agent/agent.sock")
            let listening = DispatchSemaphore(value: 0)
            let stopped = DispatchSemaphore(value: 0)
            Thread {
                try? agent.serve(limits: .init(idleTimeout: nil, maximumLifetime: nil)) { listening.signal() }
                stopped.signal()
            }.start()
            #expect(listening.wait(timeout: .now() + 10) == .success)
            defer {
                try? agent.stop()
                #expect(stopped.wait(timeout: .now() + 10) == .success)
            }
            try body(agent)
        }
    }

    /// 300 peers connect and send nothing; before, the agent served one connection at a time and
    /// waited 2 s on each, so `status` (whose client gives up after 5 s) failed behind them.
    @Test func statusAnswers_while300IdlePeersAreConnected() throws {
        try withRunningAgent { agent in
            let idle = try (0..<300).map { _ in try connectedPeer(to: agent.socketPath) }
            defer { idle.forEach { close($0) } }
            #expect(try agent.status().isEmpty)
            #expect(try agent.lock(path: nil) == 0)
        }
    }

    /// A request split over many writes still gets its answer, as long as it completes in time.
    @Test func aRequestSentInPieces_isAnswered() throws {
        try withRunningAgent { agent in
            let frame: [UInt8] = [0, 0, 0, 2, 1, 0x04]  // status
            let descriptor = try connectedPeer(to: agent.socketPath)
            defer { close(descriptor) }
            for byte in frame {
                _ = [byte].withUnsafeBytes { send(descriptor, $0.baseAddress!, 1, 0) }
                usleep(50_000)
            }
            var reply = [UInt8](repeating: 0, count: 6)
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let got = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, 6, Int32(MSG_WAITALL)) }
            #expect(got == 6)
            #expect(Array(reply.prefix(6)) == [0, 0, 0, 2, 1, 0x82])
        }
    }

    /// Sends `request` on a new connection and returns the reply's type.
    private func exchange(_ agent: VaultAgent, _ request: AgentMessage) throws -> AgentMessage.MessageType {
        let descriptor = try connectedPeer(to: agent.socketPath, sending: request.encodeFrame())
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8](repeating: 0, count: 6)
        let got = head.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, 6, Int32(MSG_WAITALL)) }
        try #require(got == 6)
        return AgentMessage.MessageType(rawValue: head[5])
    }

    private func add(_ path: String) -> AgentMessage {
        AgentMessage(.add, [Array(path.utf8), Array(repeating: 1, count: 16), [], Array(repeating: 9, count: 32), []])
    }

    /// Found by an attack: with no bound, 60 KB paths made a status reply larger than a frame
    /// (`--status` failed "TooLong"), replies that filled the socket stalled the agent for every
    /// peer that did not read, and 5,449 adds exhausted its guarded memory and crashed it.
    @Test func heldVaultsAndPathsAreBounded_andAFullStatusStillAnswers() throws {
        try withRunningAgent { agent in
            #expect(try exchange(agent, add("/" + String(repeating: "p", count: 1024))) == .refused)
            let long = String(repeating: "q", count: 1000)
            for index in 0..<32 { #expect(try exchange(agent, add("/\(index)/\(long)")) == .ok) }
            #expect(try exchange(agent, add("/one-too-many")) == .refused)
            #expect(try exchange(agent, add("/0/\(long)")) == .ok)  // replacing a held vault is fine
            // Peers that ask for the largest status and never read it do not hold up the others.
            let silent = try (0..<8).map { _ in
                try connectedPeer(to: agent.socketPath, sending: AgentMessage(.status).encodeFrame())
            }
            defer { silent.forEach { close($0) } }
            #expect(try agent.status().count == 32)
            #expect(try agent.lock(path: nil) == 32)
        }
    }
}
