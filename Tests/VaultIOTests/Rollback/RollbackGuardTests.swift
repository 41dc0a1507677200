// vault: the rollback guard: an older copy of the whole file put back is noticed (L-RB-1 to L-RB-7).

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

/// The test configuration with the rollback state in `stateDirectory` and `policy`.
private func guarded(_ stateDirectory: String, _ policy: RollbackPolicy = .refuse) -> VaultConfiguration {
    var configuration = VaultConfiguration.insecureForTesting(rollbackState: .directory(stateDirectory))
    configuration.rollbackPolicy = policy
    return configuration
}

private func open(_ path: String, _ configuration: VaultConfiguration) throws -> Vault {
    try Vault(path: path, credentials: .password(testPassword), configuration: configuration)
}

private func copyFile(_ from: String, _ to: String) throws {
    try Data(fileBytes(from)).write(to: URL(fileURLWithPath: to))
}

/// A vault at generation 3 in `directory/test.vault`, and a copy of its generation 2 at `directory/old.vault`
/// that still holds the recovery keyslot generation 3 removed (without a rekey), with the state of
/// generation 3 recorded in `directory/state`: the old copy is a rollback (L-RB-1, removedCredential).
private func vaultWithOldCopy(in directory: String) throws -> (vault: Vault, path: String, old: String) {
    let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
    let path = directory + "/test.vault"
    try vault.write { try $0.addKeyslot(.password, credentials: .password("recovery")) }
    try copyFile(path, directory + "/old.vault")
    try vault.write { _ = try $0.removeKeyslot(at: 1, rekey: nil) }
    return (vault, path, directory + "/old.vault")
}

@Suite("Rollback")
struct RollbackTests {
    // L-RB-4: an older copy that brings back a removed keyslot is refused by open, read and write.
    @Test func open_olderCopyPutBack_throwsRolledBackWithGenerations() throws {
        try withTemporaryDirectory { directory in
            let (_, path, old) = try vaultWithOldCopy(in: directory)
            try copyFile(old, path)
            let error = try #require(throws: VaultIOError.self) { try open(path, guarded(directory + "/state")) }
            #expect(error.code == .rolledBack)
            #expect(error.rollback?.seenGeneration == 3)
            #expect(error.rollback?.foundGeneration == 2)
            #expect(error.rollback?.kind == .removedCredential)
        }
    }

    /// Found by an attack: opening with held keys (an agent's) skipped the comparison that an
    /// open with credentials makes; only the first read or write noticed.
    @Test func open_withHeldKeys_olderCopyPutBack_throwsRolledBack_orReportsItUnderAllowReads() throws {
        try withTemporaryDirectory { directory in
            let (vault, path, old) = try vaultWithOldCopy(in: directory)
            let keys = vault.heldKeys
            try copyFile(old, path)
            let error = try #require(throws: VaultIOError.self) {
                try Vault(path: path, keys: keys, configuration: guarded(directory + "/state"))
            }
            #expect(error.code == .rolledBack && error.rollback?.foundGeneration == 2)
            let reading = try Vault(path: path, keys: keys, configuration: guarded(directory + "/state", .allowReads))
            #expect(reading.rollbackFinding?.kind == .removedCredential)
        }
    }

    // L-RB-4, L-RB-5: the open vault's reads and writes are refused too, and nothing is written.
    @Test func readAndWrite_ofOpenVault_afterOldCopyPutBack_throwRolledBack() throws {
        try withTemporaryDirectory { directory in
            let (vault, path, old) = try vaultWithOldCopy(in: directory)
            try copyFile(old, path)
            #expect(throws: VaultIOError(.rolledBack)) { try vault.read { $0.header.generation } }
            let before = try fileBytes(path)
            #expect(throws: VaultIOError(.rolledBack)) { try vault.write { try $0.set(makeDraft(service: "new")) } }
            #expect(try fileBytes(path) == before)
        }
    }

    @Test func allowReads_readsOldCopyAndReportsFinding_butRefusesWrites() throws {
        try withTemporaryDirectory { directory in
            let (_, path, old) = try vaultWithOldCopy(in: directory)
            try copyFile(old, path)
            let vault = try open(path, guarded(directory + "/state", .allowReads))
            #expect(
                vault.rollbackFinding
                    == RollbackFinding(
                        vaultID: vault.vaultID,
                        seenGeneration: 3,
                        foundGeneration: 2,
                        kind: .removedCredential
                    )
            )
            #expect(try vault.read { $0.header.generation } == 2)
            #expect(throws: VaultIOError(.rolledBack)) { try vault.write { try $0.set(makeDraft(service: "new")) } }
            // The record is not lowered by reading the old copy.
            #expect(
                try RollbackGuard(.directory(directory + "/state")).recorded(vaultID: vault.vaultID)?.generation == 3
            )
        }
    }

    @Test func accept_writesOnOldCopyAndRecordsItsNewGeneration() throws {
        try withTemporaryDirectory { directory in
            let (_, path, old) = try vaultWithOldCopy(in: directory)
            try copyFile(old, path)
            let vault = try open(path, guarded(directory + "/state", .accept))
            try vault.write { try $0.set(makeDraft(service: "after")) }
            let state = RollbackGuard(.directory(directory + "/state"))
            #expect(try state.recorded(vaultID: vault.vaultID)?.generation == 3)
            #expect(try state.recorded(vaultID: vault.vaultID)?.removedCredentials.isEmpty == true)
            // The accepted file is now the reference: a plain open goes through.
            let reopened = try open(path, guarded(directory + "/state"))
            #expect(try secret(in: reopened, service: "after") != nil)
            #expect(reopened.rollbackFinding == nil)
        }
    }

    // L-RB-1: under the master key seen, an older copy, or another copy at the same generation, is a
    // fork (a git branch switch, the copy a sync tool kept): reads and writes go on. Before, both
    // were refused as rollbacks.
    @Test(arguments: [false, true])
    func forkUnderTheSameKey_isNoRollback(sameGeneration: Bool) throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            let path = directory + "/test.vault"
            try copyFile(path, directory + "/fork.vault")
            try vault.write { try $0.set(makeDraft(service: "here")) }
            if !sameGeneration { try vault.write { try $0.set(makeDraft(service: "here too")) } }
            // Another machine (its own state) writes generation 2 of the copy.
            let fork = try open(directory + "/fork.vault", guarded(directory + "/other-state"))
            try fork.write { try $0.set(makeDraft(service: "there")) }
            try copyFile(directory + "/fork.vault", path)
            let reopened = try open(path, guarded(directory + "/state"))
            #expect(reopened.rollbackFinding == nil)
            #expect(try secret(in: reopened, service: "there") != nil)
            try reopened.write { try $0.set(makeDraft(service: "on the fork")) }
            let state = RollbackGuard(.directory(directory + "/state"))
            let record = try #require(try state.recorded(vaultID: vault.vaultID))
            let seen = try VaultFileReader(path: directory + "/fork.vault").open(with: .password(testPassword))
            #expect(record.fork(of: SeenGeneration(seen)) == (sameGeneration ? 3 : 3))
        }
    }

    // L-RB-1: an older copy from before a rekey is rolled back: its master key was retired here.
    @Test func olderCopyFromBeforeARekey_isRolledBack() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            let path = directory + "/test.vault"
            try copyFile(path, directory + "/old.vault")
            try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            try copyFile(directory + "/old.vault", path)
            let error = try #require(throws: VaultIOError.self) { try open(path, guarded(directory + "/state")) }
            #expect(error.rollback?.kind == .retiredMasterKey)
            #expect(error.rollback?.foundGeneration == 1 && error.rollback?.seenGeneration == 2)
        }
    }

    // What git-merge asks of the other branch's file: the record's finding, and no record made.
    @Test func finding_forASnapshot_readsTheRecordWithoutRaisingIt() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            let path = directory + "/test.vault"
            try copyFile(path, directory + "/old.vault")
            try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            let old = try VaultFileReader(path: directory + "/old.vault").open(with: .password(testPassword))
            let current = try VaultFileReader(path: path).open(with: .password(testPassword))
            let state = RollbackGuard(.directory(directory + "/state"))
            #expect(state.finding(for: old)?.kind == .retiredMasterKey)
            #expect(state.finding(for: current) == nil)
            #expect(RollbackGuard(.disabled).finding(for: old) == nil)
            #expect(RollbackGuard(.directory(directory + "/other")).finding(for: current) == nil)
            #expect(access(directory + "/other", F_OK) != 0, "a look records nothing")
        }
    }

    @Test func newerFileWrittenElsewhere_raisesTheRecord() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            // Written by a process without the check (another machine, say): generation 3.
            let elsewhere = try open(vault.path, testConfiguration)
            try elsewhere.write { try $0.set(makeDraft(service: "a")) }
            try elsewhere.write { try $0.set(makeDraft(service: "b")) }
            #expect(try vault.read { $0.header.generation } == 3)
            #expect(
                try RollbackGuard(.directory(directory + "/state")).recorded(vaultID: vault.vaultID)?.generation == 3
            )
        }
    }

    // L-RB-3: a file that does not authenticate never raises the record.
    @Test func unauthenticatedNewerHeader_doesNotPoisonTheState() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            let elsewhere = try open(vault.path, testConfiguration)
            try elsewhere.write { try $0.set(makeDraft(service: "a")) }
            // Flip one bit of the header MAC of generation 2 (which nothing with the check has read).
            var bytes = try fileBytes(vault.path)
            // Formats 1 and 2: the header ends with its MAC; format 3: the current slot does (its
            // own index is its byte 160, R3-SLT-2).
            let head = try VaultFileReader(path: vault.path).headerBytes()
            let macEnd = head[8] == 3 ? Int(head[160]) * 512 + 512 : head.count
            bytes[macEnd - 1] ^= 1
            try Data(bytes).write(to: URL(fileURLWithPath: vault.path))
            #expect(throws: VaultFormatError(.headerAuthentication)) {
                try open(vault.path, guarded(directory + "/state"))
            }
            let state = RollbackGuard(.directory(directory + "/state"))
            #expect(try state.recorded(vaultID: vault.vaultID)?.generation == 1)
            // A wrong password records nothing either.
            let other = try makeVault(in: directory, name: "other.vault", configuration: testConfiguration)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(
                    path: other.path,
                    credentials: .password("wrong"),
                    configuration: guarded(directory + "/state")
                )
            }
            #expect(try state.recorded(vaultID: other.vaultID) == nil)
        }
    }

    // L-RB-2: the state file's place, modes and contents.
    @Test func stateFile_isPrivateAndHoldsOnlyIDGenerationAndHeaderHash() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state/nested"))
            let statePath = try #require(
                RollbackGuard(.directory(directory + "/state/nested")).statePath(vaultID: vault.vaultID)
            )
            #expect(statePath == directory + "/state/nested/" + Hex.encode(vault.vaultID) + ".seen")
            #expect(permissions(statePath) == 0o600)
            #expect(permissions(directory + "/state/nested") == 0o700)
            #expect(permissions(directory + "/state") == 0o700)
            let headerBytes = try vault.read { $0.headerBytes }
            let text = String(decoding: try fileBytes(statePath), as: UTF8.self)
            let epoch = try vault.read { $0.keys.epochFingerprint(vaultID: vault.vaultID) }
            #expect(
                text == """
                    vault-seen 2
                    vault-id \(Hex.encode(vault.vaultID))
                    generation 1
                    header-blake2b-256 \(Hex.encode(BLAKE2b.hash(headerBytes, length: 32)))
                    epoch \(Hex.encode(epoch))

                    """
            )
            #expect(!text.contains(testPassword))
        }
    }

    // L-RB-7: an unusable state file is a clear error, never "no record".
    @Test func corruptStateFile_throwsRollbackStateInvalid_andAcceptReplacesIt() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            let state = RollbackGuard(.directory(directory + "/state"))
            let statePath = try #require(state.statePath(vaultID: vault.vaultID))
            try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: statePath))
            let error = try #require(throws: VaultIOError.self) { try open(vault.path, guarded(directory + "/state")) }
            #expect(error.code == .rollbackStateInvalid)
            #expect(error.path == statePath)
            // Accepting replaces the file through a write that commits, not by opening (L-RB-4).
            let accepting = try open(vault.path, guarded(directory + "/state", .accept))
            #expect(throws: VaultIOError(.rollbackStateInvalid)) { try state.recorded(vaultID: vault.vaultID) }
            try accepting.write { try $0.set(makeDraft(service: "after")) }
            #expect(try state.recorded(vaultID: vault.vaultID)?.generation == 2)
            // A state file others can write is not trusted either.
            #expect(chmod(statePath, 0o666) == 0)
            #expect(throws: VaultIOError(.rollbackStateInvalid)) { try open(vault.path, guarded(directory + "/state")) }
        }
    }

    @Test func disabled_keepsNoStateAndNoticesNothing() throws {
        try withTemporaryDirectory { directory in
            let (_, path, old) = try vaultWithOldCopy(in: directory)
            try copyFile(old, path)
            let vault = try open(path, testConfiguration)  // insecureForTesting: rollbackState .disabled
            try vault.write { try $0.set(makeDraft(service: "new")) }
            #expect(RollbackGuard(.disabled).directory == nil)
        }
    }

    // L-RB-4: a reader that opened a generation just before a writer committed and recorded the
    // next one (which removed a keyslot the reader's generation still has) is stale, not rolled
    // back: the guard opens the newer file instead.
    @Test func observeNewest_staleSnapshot_isReplacedByNewestFile() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            try vault.write { try $0.addKeyslot(.password, credentials: .password("recovery")) }
            let stale = try VaultFileReader(path: vault.path).open(with: .password(testPassword))
            try vault.write { _ = try $0.removeKeyslot(at: 1, rekey: nil) }
            let state = RollbackGuard(.directory(directory + "/state"))
            #expect(try state.observe(stale)?.kind == .removedCredential)
            let (snapshot, finding) = try state.observeNewest(stale, at: vault.path)
            #expect(finding == nil)
            #expect(snapshot.header.generation == 3)
        }
    }

    // L-RB-1, L-RB-2: a version-1 record (written by an earlier release) keeps its meaning until a
    // generation at or above it is seen, and then learns the epoch.
    @Test func versionOneRecord_isUpgradedByTheNextObservation() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration)
            try vault.write { try $0.set(makeDraft(service: "a")) }
            let snapshot = try VaultFileReader(path: vault.path).open(with: .password(testPassword))
            let state = RollbackGuard(.directory(directory + "/state"))
            _ = try state.observe(snapshot)
            let path = try #require(state.statePath(vaultID: vault.vaultID))
            let v1 = """
                vault-seen-generation 1
                vault-id \(Hex.encode(vault.vaultID))
                generation 5
                header-blake2b-256 \(Hex.encode([UInt8](repeating: 7, count: 32)))

                """
            try Data(v1.utf8).write(to: URL(fileURLWithPath: path))
            #expect(try state.observe(snapshot)?.kind == .olderGeneration)
            for _ in 0..<4 { try vault.write { try $0.set(makeDraft(service: "more \(UUID())")) } }
            let newer = try VaultFileReader(path: vault.path).open(with: .password(testPassword))
            #expect(try state.observe(newer) == nil)
            #expect(try state.recorded(vaultID: vault.vaultID)?.epoch != nil)
            #expect(try state.observe(snapshot) == nil)  // now a fork under the same key
        }
    }

    // L-RB-6: updates from several processes at once keep the highest generation (merge-max under a lock).
    @Test func concurrentObservers_inChildProcesses_keepTheHighestGeneration() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration)
            var generations = [try fileBytes(vault.path)]
            for index in 0..<5 {
                try vault.write { try $0.set(makeDraft(service: "s\(index)")) }
                generations.append(try fileBytes(vault.path))
            }
            let snapshots = try generations.map { try VaultSnapshot.open($0, with: .password(testPassword)) }
            let state = RollbackGuard(.directory(directory + "/state"))
            _ = try state.observe(snapshots[0])
            try runInChildProcesses(6) { child in
                for round in 0..<4 {
                    _ = try state.observe(snapshots[(child + round) % snapshots.count])
                }
            }
            let record = try #require(try state.recorded(vaultID: vault.vaultID))
            let newest = SeenGeneration(snapshots[5])
            #expect(record.generation == newest.generation && record.headerHash == newest.headerHash)
            #expect(record.epoch == newest.epoch)
        }
    }

    /// Before, a rollback reached a Keychain caller as `.conflict`, the case of a migration
    /// whose target is taken: an app could not tell a put-back copy from a lost race.
    @Test func keychain_onRolledBackVault_throwsRolledBackOnReadAndWrite() throws {
        try withTemporaryDirectory { directory in
            let (vault, path, old) = try vaultWithOldCopy(in: directory)
            let keychain = Keychain(service: "app", vault: vault)
            try copyFile(old, path)
            #expect {
                _ = try keychain.get("token") as String?
            } throws: { error in
                guard case KeychainError.rolledBack(let finding) = error else { return false }
                // Wrapped for app code, the finding is kept (L-ERR-1).
                return finding.seenGeneration > finding.foundGeneration && VaultError(error).rollback == finding
            }
            #expect {
                try keychain.set("s3cr3t", forKey: "token")
            } throws: { error in
                guard case KeychainError.rolledBack = error else { return false }
                return (error as? KeychainError)?.localizedDescription.contains("older copy") == true
            }
        }
    }

    // L-RB-2: a record with many removed credentials is still read back. The first version read
    // 1,024 bytes and refused its own file after about 16 removals, locking the user out.
    @Test func recordOfManyRemovals_staysReadable() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: guarded(directory + "/state"))
            for n in 0..<24 {
                try vault.write { try $0.addKeyslot(.password, credentials: .password("extra \(n)")) }
                try vault.write { _ = try $0.removeKeyslot(at: 1, rekey: nil) }
            }
            let state = RollbackGuard(.directory(directory + "/state"))
            let path = try #require(state.statePath(vaultID: vault.vaultID))
            #expect(try fileBytes(path).count > 1_024)
            #expect(try state.recorded(vaultID: vault.vaultID)?.removedCredentials.count == 24)
            #expect(try secret(in: try open(vault.path, guarded(directory + "/state")), service: "none") == nil)
        }
    }

    // L-RB-8, the third review: after an accepted write on a copy from before a rekey, a write
    // under the rekeyed key retires the accepted key again (it stayed "known", trusted for good).
    @Test func writeUnderTheNewKey_afterAnAcceptedOldCopy_retiresTheOldKey() throws {
        try withTemporaryDirectory { directory in
            let state = directory + "/state"
            let vault = try makeVault(in: directory, configuration: guarded(state))
            let path = directory + "/test.vault"
            try copyFile(path, directory + "/old.vault")
            try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            try copyFile(path, directory + "/new.vault")
            try copyFile(directory + "/old.vault", path)
            let accepting = try open(path, guarded(state, .accept))
            try accepting.write { try $0.set(makeDraft(service: "on the old copy")) }
            try copyFile(directory + "/new.vault", path)
            let current = try open(path, guarded(state))
            try current.write { try $0.set(makeDraft(service: "on the new key")) }
            try copyFile(directory + "/old.vault", path)
            let error = try #require(throws: VaultIOError.self) { try open(path, guarded(state)) }
            #expect(error.rollback?.kind == .retiredMasterKey)
        }
    }

    // L-RB-8, the third review: a merge that keeps ours' rekeyed key over theirs' retires theirs'
    // key, even when ours was accepted (the rekeyed upstream of a pull --rebase racing a rekey).
    @Test func mergeKeepingOursKey_retiresTheirsKey_evenWhenAccepted() throws {
        try withTemporaryDirectory { directory in
            let state = directory + "/state"
            let vault = try makeVault(in: directory, configuration: testConfiguration)
            let path = directory + "/test.vault"
            try copyFile(path, directory + "/base.vault")
            try vault.write { try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            try copyFile(path, directory + "/rekeyed.vault")
            // This machine saw only the old key; theirs is its own commit on the old key.
            _ = try Vault(
                path: directory + "/base.vault",
                credentials: .password(testPassword),
                configuration: guarded(state)
            )
            try copyFile(directory + "/base.vault", directory + "/mine.vault")
            let mine = try Vault(
                path: directory + "/mine.vault",
                credentials: .password(testPassword),
                configuration: guarded(state)
            )
            try mine.write { try $0.set(makeDraft(service: "unpushed")) }
            let ours = try open(directory + "/rekeyed.vault", guarded(state, .accept))
            let reader = { (p: String) in try VaultFileReader(path: p).open(with: .password(testPassword)) }
            let report = try ours.merge(
                try reader(directory + "/mine.vault"),
                base: try reader(directory + "/base.vault")
            )
            #expect(report.keysFrom == .ours)
            let error = try #require(throws: VaultIOError.self) { try open(directory + "/mine.vault", guarded(state)) }
            #expect(error.rollback?.kind == .retiredMasterKey)
        }
    }
}
