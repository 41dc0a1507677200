// vault agent: starting an agent in a process of its own (Spec/agent.md, section 2), and the
// failures a caller words.

import Glibc
import Testing
import VaultIO
import VaultTestSupport

@Suite("VaultAgent.startInBackground")
struct VaultAgentStartTests {
    @Test func isAnswering_isFalseWithoutAnAgent() throws {
        try withTemporaryDirectory { directory in
            #expect(!VaultAgent(socketPath: directory + "/agent/agent.sock").isAnswering)
        }
    }

    @Test func aProgramThatExits_isAnAgentThatDidNotStart() throws {
        try withTemporaryDirectory { directory in
            let agent = VaultAgent(socketPath: directory + "/agent/agent.sock")
            let error = #expect(throws: VaultIOError(.agentNotStarted)) {
                try agent.startInBackground(command: ["/bin/true"])
            }
            #expect(error?.errno == nil)
            #expect(error?.reason == "the agent did not start (is one already running on \(agent.socketPath)?)")
        }
    }

    @Test func aProgramThatCannotRun_carriesItsErrno() throws {
        try withTemporaryDirectory { directory in
            let agent = VaultAgent(socketPath: directory + "/agent/agent.sock")
            let error = #expect(throws: VaultIOError(.agentNotStarted)) {
                try agent.startInBackground(command: [directory + "/no-such-program"])
            }
            #expect(error?.errno == Errno(rawValue: ENOENT))
            #expect(error?.reason.hasPrefix("cannot start the agent: ") == true)
        }
    }

    @Test func aSquattedSocketDirectory_isRefusedBeforeAnythingRuns() throws {
        try withTemporaryDirectory { directory in
            let squatted = directory + "/squatted"
            mkdir(squatted, 0o700)
            chmod(squatted, 0o777)
            let marker = directory + "/ran"
            let agent = VaultAgent(socketPath: squatted + "/agent.sock")
            #expect(throws: VaultIOError(.system)) {
                try agent.startInBackground(command: ["/usr/bin/touch", marker])
            }
            #expect(access(marker, F_OK) != 0, "nothing was started")
        }
    }
}
