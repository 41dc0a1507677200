// vaulttool agent: a second start, a squatted socket directory, and a command after the agent
// dropped the vault's keys (Spec/agent.md, sections 1 and 2).

import Foundation
import Glibc
import Testing
import VaultIO
import VaultTestSupport

@Suite("Agent start and hints")
struct AgentStartTests {
    /// Before, a second start with other limits printed the env line, exited 0 and kept the
    /// running agent's 600 s / 7200 s: the limits asked for were silently ignored.
    @Test func aSecondStart_refusesOtherLimits_andReusesTheRunningAgentOtherwise() throws {
        let w = try Workspace()
        let agent = try AgentCommandTests.RunningAgent(in: w)
        let limited = try w.run(["agent", "--socket", agent.socket, "--idle-timeout", "5"])
        #expect(limited.status == 1, "\(limited.stdout) \(limited.stderr)")
        #expect(limited.stdout.isEmpty)
        #expect(limited.stderr.contains("already runs at \(agent.socket) and keeps its own limits"))
        let plain = try w.run(["agent", "--socket", agent.socket])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == "VAULT_AGENT_SOCK='\(agent.socket)'; export VAULT_AGENT_SOCK;\n")
        #expect(plain.stderr.contains("an agent already runs at \(agent.socket); using it"))
    }

    /// Before: "the agent did not start (is one already running …?)" for a directory someone else
    /// made first. Now the directory, its owner and its mode are named, and nothing is started.
    @Test func aSquattedSocketDirectory_isNamedWithItsMode() throws {
        let w = try Workspace()
        let directory = w.file("squatted")
        mkdir(directory, 0o700)
        chmod(directory, 0o777)
        let started = try w.run(["agent", "--socket", directory + "/agent.sock"])
        #expect(started.status == 7, "\(started.stdout) \(started.stderr)")
        #expect(started.stdout.isEmpty)
        #expect(started.stderr.contains("\(directory) must be a directory of this user with mode 0700"))
        #expect(started.stderr.contains("mode 777"))
        #expect(!started.stderr.contains("already running"))
    }

    /// Before, a `get` after `lock` said only that no password was given.
    @Test func aCommandAfterLock_saysTheAgentHoldsNoKeysForTheVault() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let agent = try AgentCommandTests.RunningAgent(in: w)
        let env = agent.environment
        #expect(try w.run(["unlock", "--password-file", "pw", "v.vault"], environment: env).status == 0)
        #expect(try w.run(["get", "--service", "db", "v.vault"], environment: env).stdout == "s3cret")
        #expect(try w.run(["lock"], environment: env).status == 0)
        let get = try w.run(["get", "--service", "db", "v.vault"], environment: env)
        #expect(get.status == 64)
        #expect(get.stderr.contains("agent at VAULT_AGENT_SOCK holds no keys for v.vault"), "\(get.stderr)")
        #expect(get.stderr.contains("vaulttool unlock v.vault"))
        #expect(!get.stderr.contains("s3cret"))
        // Without an agent in the environment the message stays the plain one.
        let plain = try w.run(["get", "--service", "db", "v.vault"])
        #expect(plain.status == 64 && !plain.stderr.contains("agent"), "\(plain.stderr)")
    }
    /// Peers that send part of a request and then one byte at a time: the deadline is one per
    /// request, so `lock` answers at once and the trickling peers are dropped after 2 s. Against
    /// a real agent process: in the test process, a test that forks could hold a copy of the
    /// agent's end of a connection open.
    @Test func lockAnswers_whilePeersTrickleTheirRequests() throws {
        let w = try Workspace()
        let running = try AgentCommandTests.RunningAgent(in: w)
        let agent = VaultAgent(socketPath: running.socket)
        do {
            let slow = try (0..<10).map { _ in try connectedPeer(to: agent.socketPath, sending: [0, 0, 0, 40, 1]) }
            defer { slow.forEach { close($0) } }
            let start = ContinuousClock.now
            var answered = 0
            // Trickle for 3 s (past the 2 s request deadline), asking the agent between bytes.
            while ContinuousClock.now - start < .seconds(3) {
                for descriptor in slow {
                    _ = [UInt8(4)].withUnsafeBytes { send(descriptor, $0.baseAddress!, 1, Int32(MSG_NOSIGNAL)) }
                }
                #expect(try agent.lock(path: nil) == 0)
                answered += 1
                usleep(300_000)
            }
            #expect(answered >= 5)
            // By now the agent has closed every trickling connection: reading one finds its end.
            var byte: UInt8 = 0
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(slow[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // A close with trickled bytes still unread reaches the peer as ECONNRESET; a timeout
            // (EAGAIN) would mean the connection is still open.
            let got = recv(slow[0], &byte, 1, 0)
            let failure = errno
            #expect(got == 0 || (got < 0 && failure == ECONNRESET), "recv \(got), errno \(failure)")
        }
    }
}
