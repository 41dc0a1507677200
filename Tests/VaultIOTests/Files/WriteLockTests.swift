// vault: the lock file exists only while a writer holds it, and removing it keeps writers apart.

import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Lock file")
struct LockFileTests {
    /// Takes an OFD write lock (`F_OFD_SETLK` is 37 on Linux), as the writer lock does.
    func ofdLock(_ descriptor: CInt) -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        return fcntl(descriptor, 37, &lock) == 0
    }

    @Test func afterCreateAndWrites_noLockFileRemains() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(try directoryNames(directory) == ["test.vault"])
            try vault.write { try $0.set(makeDraft(service: "mail")) }
            #expect(try directoryNames(directory) == ["test.vault"])
        }
    }

    @Test func aLockFileLeftByACrashedWriter_isReusedAndRemoved() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let descriptor = open(vault.path + ".lock", O_RDWR | O_CREAT, 0o600)
            #expect(descriptor >= 0)
            close(descriptor)
            try vault.write { try $0.set(makeDraft(service: "mail")) }
            #expect(try directoryNames(directory) == ["test.vault"])
        }
    }

    /// A writer waiting on a lock file that its holder then removed must not go ahead when
    /// another writer already holds the new lock file: it checks, after locking, that the path
    /// still names the file it locked, and starts over.
    @Test func aWriterThatLockedARemovedFile_startsOver_andWaitsForTheNewHolder() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            var quick = testConfiguration
            quick.lockTimeout = .milliseconds(1500)
            let waiter = try Vault(path: vault.path, credentials: .password(testPassword), configuration: quick)
            let lockPath = vault.path + ".lock"

            let old = open(lockPath, O_RDWR | O_CREAT, 0o600)
            try #require(old >= 0 && ofdLock(old))
            let outcome = Mutex<String>("")
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                do {
                    try waiter.write { try $0.set(makeDraft(service: "waiter")) }
                    outcome.withLock { $0 = "wrote" }
                } catch let error as VaultIOError {
                    outcome.withLock { $0 = error.code == .lockTimeout ? "timed out" : "\(error)" }
                } catch {
                    outcome.withLock { $0 = "\(error)" }
                }
                done.signal()
            }
            // Let the waiter open the old file and poll it (if it is slower, it finds the new one directly).
            usleep(300_000)
            // The holder's release: remove the file, then unlock. Meanwhile a third writer made and holds a new one.
            #expect(unlink(lockPath) == 0)
            let new = open(lockPath, O_RDWR | O_CREAT | O_EXCL, 0o600)
            try #require(new >= 0 && ofdLock(new))
            close(old)
            done.wait()
            #expect(outcome.withLock { $0 } == "timed out")
            #expect(try secret(in: vault, service: "waiter") == nil)
            close(new)
            unlink(lockPath)
            try waiter.write { try $0.set(makeDraft(service: "waiter")) }
            #expect(try secret(in: vault, service: "waiter") != nil)
        }
    }

    @Test func manyWritersWithTheirOwnVaults_stillExcludeEachOther() throws {
        try withTemporaryDirectory { directory in
            let path = try makeVault(in: directory).path
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { thread in
                do {
                    let own = try Vault(
                        path: path,
                        credentials: .password(testPassword),
                        configuration: testConfiguration
                    )
                    for index in 0..<15 {
                        try own.write { try $0.set(makeDraft(service: "own-\(thread)", account: "\(index)")) }
                    }
                } catch {
                    failures.withLock { $0.append("\(thread): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let vault = try Vault(path: path, credentials: .password(testPassword), configuration: testConfiguration)
            #expect(try vault.read { (try $0.index.entries.count, $0.header.generation) } == (90, 91))
            #expect(try directoryNames(directory) == ["test.vault"])
        }
    }
}
