// vault: a password change, a keyslot removal and a migration run each credential's key derivation once.

import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

/// A cost above the test KDF's, so that its runs can be told apart from the test KDF's.
private let raised = KDFParameters(memoryKiB: 1024, iterations: 2, lanes: 1)

private func configuration(state: String) -> VaultConfiguration {
    VaultConfiguration.insecureForTesting(rollbackState: .directory(state))
}

/// Runs `body` with a fresh KDF counter and returns the parameters of every Argon2id run.
private func counting(_ body: () throws -> Void) rethrows -> [KDFParameters] {
    let counter = KDFRunCounter()
    try KDFRunCounter.$current.withValue(counter) { try body() }
    return counter.runs
}

@Suite("Credential sessions: one key derivation per credential")
struct CredentialSessionTests {
    @Test func migrate_raisesTheKeyslot_withOneUnlockAndOneNewKey() throws {
        try withTemporaryDirectory { dir in
            let configuration = configuration(state: dir + "/state")
            let vault = try makeVault(in: dir, configuration: configuration)
            try vault.write { txn in for n in 0..<5 { try txn.set(makeDraft(service: "s\(n)")) } }
            let weak = try #require(try vault.read { $0.header.keyslots[0].kdf })
            var report: MigrationReport?
            let runs = try counting {
                let session = try CredentialSession(
                    path: vault.path,
                    credentials: .password(testPassword),
                    configuration: configuration
                )
                report = try session.migrate(
                    MigrationOptions(kdf: .exactly(raised)),
                    credentials: .password(testPassword)
                )
            }
            // One run checks the password (at the old cost), one makes the new key (at the new cost);
            // the plan knows the opened keyslot and the read-back uses the keys held.
            #expect(runs == [weak, raised])
            #expect(report?.migrated == true)
            #expect(report?.plan.keyslotChanges.map(\.to) == [raised])
            let reopened = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: configuration
            )
            #expect(try reopened.read { $0.header.keyslots[0].kdf } == raised)
            #expect(try secret(in: reopened, service: "s4") == "secret of s4/alice")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("backup") }.isEmpty)
        }
    }

    @Test func passwordChange_withRekey_runsTheOldAndTheNewPasswordOnceEach() throws {
        try withTemporaryDirectory { dir in
            let configuration = configuration(state: dir + "/state")
            let vault = try makeVault(in: dir, configuration: configuration)
            try vault.write { txn in try txn.set(makeDraft(service: "kept")) }
            let runs = try counting {
                let session = try CredentialSession(
                    path: vault.path,
                    credentials: .password(testPassword),
                    configuration: configuration
                )
                try session.write { txn in
                    let index = try #require(session.openedKeyslot(in: txn.keyslots))
                    try txn.replaceKeyslot(
                        at: index,
                        kind: .password,
                        credentials: .password("new password"),
                        kdf: raised,
                        rekey: RekeyOptions(credentials: [.password(testPassword)])
                    )
                }
            }
            #expect(runs.count == 2)
            #expect(runs.filter { $0 == raised }.count == 1)
            let reopened = try Vault(
                path: vault.path,
                credentials: .password("new password"),
                configuration: configuration
            )
            #expect(try secret(in: reopened, service: "kept") == "secret of kept/alice")
        }
    }

    @Test func keyslotRemoval_withRekey_rewrapsTheOpenedKeyslotWithoutASecondDerivation() throws {
        try withTemporaryDirectory { dir in
            let configuration = configuration(state: dir + "/state")
            let vault = try makeVault(in: dir, configuration: configuration)
            try vault.write { txn in
                try txn.addKeyslot(
                    .keyFile,
                    credentials: Credentials(keyFile: SecretBytes(bytes: [UInt8](repeating: 7, count: 32)))
                )
                try txn.set(makeDraft(service: "kept"))
            }
            let runs = try counting {
                let session = try CredentialSession(
                    path: vault.path,
                    credentials: .password(testPassword),
                    configuration: configuration
                )
                try session.write { txn in
                    // The password keyslot is kept and rewrapped under the new master key.
                    try txn.removeKeyslot(at: 1, rekey: RekeyOptions(credentials: [.password(testPassword)]))
                }
            }
            #expect(runs.count == 1, "the unlock's key is reused for the rewrap")
            let reopened = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: configuration
            )
            #expect(try reopened.read { $0.header.keyslots.count } == 1)
            #expect(try secret(in: reopened, service: "kept") == "secret of kept/alice")
        }
    }

    @Test func migrate_whoseResultDoesNotVerify_putsTheOriginalBackUnderTheLock_withoutARollbackAlarm() throws {
        try withTemporaryDirectory { dir in
            let configuration = configuration(state: dir + "/state")
            let vault = try makeVault(in: dir, configuration: configuration)
            try vault.write { txn in try txn.set(makeDraft(service: "kept")) }
            let original = try Data(contentsOf: URL(fileURLWithPath: vault.path))
            let session = try CredentialSession(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: configuration
            )
            let lockedOut = Mutex<Bool?>(nil)
            #expect(throws: VaultFormatError(.recordCorrupt)) {
                try MigrationTesting.$afterCommit.withValue({ path in
                    // Still under the write lock: another writer cannot get in.
                    var other = configuration
                    other.lockTimeout = .zero
                    let writer = try Vault(path: path, credentials: .password(testPassword), configuration: other)
                    // On another thread: on this one a write is reentrant and refused at once (L-LK-3).
                    let finished = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        do {
                            try writer.write { txn in try txn.set(makeDraft(service: "other")) }
                            lockedOut.withLock { $0 = false }
                        } catch let error as VaultIOError where error.code == .lockTimeout {
                            lockedOut.withLock { $0 = true }
                        } catch {}
                        finished.signal()
                    }
                    finished.wait()
                    // The storage damages the migrated file.
                    let bytes = [UInt8](repeating: 0, count: 4096)
                    try Data(bytes).write(to: URL(fileURLWithPath: path))
                }) {
                    try session.migrate(MigrationOptions(kdf: .exactly(raised)), credentials: .password(testPassword))
                }
            }
            #expect(lockedOut.withLock { $0 } == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.path)) == original)
            // The record still holds the original generation: no false rollback alarm, writes go on.
            var refuse = configuration
            refuse.rollbackPolicy = .refuse
            let reopened = try Vault(path: vault.path, credentials: .password(testPassword), configuration: refuse)
            #expect(reopened.rollbackFinding == nil)
            try reopened.write { txn in try txn.set(makeDraft(service: "after")) }
            #expect(try secret(in: reopened, service: "kept") == "secret of kept/alice")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("backup") }.isEmpty,
                "the backup became the vault file again"
            )
        }
    }
}
