// vault: an app that runs a vault agent in-process and another that opens through it, written
// against the public API only (Spec/agent.md).

import Foundation
import Testing
import VaultIO

/// The server thread's error, read after the semaphore that orders the write before the read.
private final class FailureBox: @unchecked Sendable {
    var error: (any Error)?
}

@Suite struct VaultAgentTests {
    /// Serves `agent` on a thread of this process until `stop`; returns once it accepts connections.
    private func serving(_ agent: VaultAgent) throws {
        let listening = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Thread {
            do {
                try agent.serve(limits: VaultAgent.Limits(idleTimeout: nil, maximumLifetime: nil)) {
                    listening.signal()
                }
            } catch {
                failure.error = error
                listening.signal()
            }
        }.start()
        #expect(listening.wait(timeout: .now() + 10) == .success)
        if let error = failure.error { throw error }
    }

    @Test func keysHandedToTheAgentOpenTheVaultAndItsCopiesWithoutTheCredential() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/app.vault"
            let vault = try Vault.create(at: path, credentials: .password("pw"), configuration: .insecureForTesting())
            try Keychain(service: "api", vault: vault).set("token", forKey: "bot")
            // The agent makes its socket's directory, 0700, itself.
            let agent = VaultAgent(socketPath: directory + "/agent/agent.sock")
            try serving(agent)
            defer { try? agent.stop() }

            try agent.add(vault)
            let resolved = try VaultAgent.resolvedPath(path)
            #expect(try agent.status().map(\.path) == [resolved])
            #expect(try agent.status().first?.secondsLeft == nil)
            let vaultID = try VaultFileReader(path: path).header().vaultID
            let keys = try #require(try agent.keys(forVaultAt: resolved, vaultID: vaultID))
            let opened = try Vault(path: path, keys: keys, configuration: .insecureForTesting())
            #expect(try Keychain(service: "api", vault: opened).string(forKey: "bot") == "token")

            // A copy the agent never saw (git hands drivers temporary files) is found by vault ID.
            let copy = directory + "/copy.vault"
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            let copyKeys = try #require(agent.keys(forVaultID: vaultID, preferring: copy))
            #expect(try VaultFileReader(path: copy).open(keys: copyKeys).header.vaultID == vaultID)
            #expect(agent.keys(forVaultID: Array(repeating: 7, count: 16), preferring: copy) == nil)

            #expect(try agent.lock(path: nil) == 1)
            #expect(try agent.keys(forVaultAt: resolved, vaultID: vaultID) == nil)
            #expect(try agent.status().isEmpty)
        }
    }

    @Test func anAgentThatIsNotThereIsASystemErrorNamingTheStep() {
        let agent = VaultAgent(socketPath: "/nonexistent-\(UUID().uuidString)/agent.sock")
        #expect {
            try agent.status()
        } throws: { error in
            guard let error = error as? VaultIOError else { return false }
            return error.code == .system && error.errno == .noSuchFileOrDirectory
                && error.operation.hasPrefix("connect")
        }
    }

    @Test func theEnvironmentNamesTheAgentOnlyWhenSet() {
        #expect(VaultAgent.fromEnvironment([:]) == nil)
        #expect(VaultAgent.fromEnvironment(["VAULT_AGENT_SOCK": ""]) == nil)
        #expect(VaultAgent.fromEnvironment(["VAULT_AGENT_SOCK": "/run/a.sock"])?.socketPath == "/run/a.sock")
        #expect(
            VaultAgent.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/7"])
                == "/run/user/7/vault-agent/agent.sock"
        )
        #expect(VaultAgent.defaultSocketPath(environment: [:]) == "/tmp/vault-agent-\(getuid())/agent.sock")
    }
}
