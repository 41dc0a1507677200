// vault: VaultCopyOpener opens copies of one vault with the agent's keys, else the credentials once.

import Foundation
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("VaultCopyOpener")
struct VaultCopyOpenerTests {
    /// How often the password was asked for.
    private final class Asked: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// Sources that answer the prompt with the test password, counting in `asked`.
    private func countingSources(_ asked: Asked) -> CredentialSources {
        CredentialSources(prompt: { _ in
            asked.count.withLock { $0 += 1 }
            return Array(testPassword.utf8)
        })
    }

    @Test func credentials_openEveryCopy_andAreReadOnce() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try FileManager.default.copyItem(atPath: vault.path, toPath: directory + "/copy.vault")
            let asked = Asked()
            let opening = try countingSources(asked).opening(vault.path, agent: VaultAgent?.none)
            #expect(asked.value == 1)
            var copies = VaultCopyOpener(opening, sources: countingSources(asked))
            #expect(try copies.open(directory + "/copy.vault").header.vaultID == vault.vaultID)
            #expect(try copies.open(vault.path).header.vaultID == vault.vaultID)
            #expect(asked.value == 1, "the opening's credentials are used as they are")
        }
    }

    @Test func agentKeysThatDoNotOpen_fallBackToTheCredentials_readOnce() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let other = try makeVault(in: directory, name: "other.vault")
            try FileManager.default.copyItem(atPath: vault.path, toPath: directory + "/copy.vault")
            let othersKeys = try other.read { $0 }
            let asked = Asked()
            var copies = VaultCopyOpener(.agent(othersKeys.keys, othersKeys), sources: countingSources(asked))
            #expect(try copies.open(directory + "/copy.vault").header.vaultID == vault.vaultID)
            #expect(try copies.open(vault.path).header.vaultID == vault.vaultID)
            #expect(asked.value == 1)
        }
    }

    @Test func agentKeysThatOpen_askForNothing() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try FileManager.default.copyItem(atPath: vault.path, toPath: directory + "/copy.vault")
            let held = try vault.read { $0 }
            let asked = Asked()
            var copies = VaultCopyOpener(.agent(held.keys, held), sources: countingSources(asked))
            #expect(try copies.open(directory + "/copy.vault").header.vaultID == vault.vaultID)
            #expect(asked.value == 0)
        }
    }
}
