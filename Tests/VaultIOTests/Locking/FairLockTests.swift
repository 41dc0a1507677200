// vault: writers enter in arrival order, across threads and processes; a writer that gives up
// leaves the queue (L-LK-4, issue 18 section 1).

import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Fair write lock")
struct FairLockTests {
    /// The ticket counter of `<vault>.lock` (bytes 0-7, little-endian), 0 when there is no file.
    func ticketCounter(_ vaultPath: String) -> UInt64 {
        let descriptor = open(vaultPath + ".lock", O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 8)
        guard pread(descriptor, &bytes, 8, 0) == 8 else { return 0 }
        return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Waits until `count` tickets were taken: every writer started so far is in the queue.
    func waitForTickets(_ count: UInt64, _ vaultPath: String) throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ticketCounter(vaultPath) < count {
            try #require(ContinuousClock.now < deadline, "\(count) tickets were never taken")
            usleep(2_000)
        }
    }

    /// Starts a write on a thread of its own that holds the lock until `release` is signalled.
    func holdLock(_ vault: Vault, release: DispatchSemaphore, then after: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            try? vault.write { _ in release.wait() }
            after()
        }
    }

    /// Threads queued one after another enter in that order, and the writer that just released
    /// (and asks again at once) comes after all of them instead of taking the lock back.
    @Test func threadsEnterInArrivalOrder_andTheReleasingWriterQueuesBehindThem() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let order = Mutex<[String]>([])
            let release = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            finished.enter()
            holdLock(vault, release: release) {
                try? vault.write { _ in order.withLock { $0.append("holder again") } }
                finished.leave()
            }
            try waitForTickets(1, vault.path)
            for waiter in 1...5 {
                finished.enter()
                Thread.detachNewThread {
                    try? vault.write { _ in order.withLock { $0.append("waiter \(waiter)") } }
                    finished.leave()
                }
                try waitForTickets(UInt64(waiter) + 1, vault.path)
            }
            release.signal()
            finished.wait()
            #expect(order.withLock { $0 } == (1...5).map { "waiter \($0)" } + ["holder again"])
        }
    }

    /// A waiter whose timeout ends leaves its place: the writer behind it is not stuck behind a
    /// slot nobody will release, and gets the lock when the holder ends.
    @Test func aWaiterThatTimesOut_leavesTheQueue_andTheNextOneGoesOn() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            var quick = testConfiguration
            quick.lockTimeout = .milliseconds(200)
            let impatient = try Vault(path: vault.path, credentials: .password(testPassword), configuration: quick)
            let release = DispatchSemaphore(value: 0)
            let holderDone = DispatchSemaphore(value: 0)
            holdLock(vault, release: release) { holderDone.signal() }
            try waitForTickets(1, vault.path)

            let impatientResult = Mutex<VaultIOError.Code?>(nil)
            let impatientDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                do {
                    try impatient.write { try $0.set(makeDraft(service: "impatient")) }
                } catch let error as VaultIOError {
                    impatientResult.withLock { $0 = error.code }
                } catch {}
                impatientDone.signal()
            }
            try waitForTickets(2, vault.path)
            let patientDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                try? vault.write { try $0.set(makeDraft(service: "patient")) }
                patientDone.signal()
            }
            try waitForTickets(3, vault.path)
            impatientDone.wait()
            #expect(impatientResult.withLock { $0 } == .lockTimeout)
            release.signal()
            holderDone.wait()
            #expect(patientDone.wait(timeout: .now() + 20) == .success)
            #expect(try secret(in: vault, service: "patient") != nil)
            #expect(try secret(in: vault, service: "impatient") == nil)
        }
    }

    /// Processes (forked children, each with its own `Vault`) queued one after another append
    /// themselves to one item in the order they arrived.
    @Test func processesEnterInArrivalOrder() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let orderKey = primaryKey(service: "order")
            try vault.write { try $0.set(makeDraft(service: "order", secret: "")) }
            let path = vault.path
            let release = DispatchSemaphore(value: 0)
            let holderDone = DispatchSemaphore(value: 0)
            holdLock(vault, release: release) { holderDone.signal() }
            try waitForTickets(1, path)
            var children: [pid_t] = []
            for child in 1...4 {
                let pid = fork()
                if pid == 0 {
                    alarm(30)  // a hung child dies rather than hanging the suite
                    var status: CInt = 1
                    do {
                        let mine = try Vault(
                            path: path,
                            credentials: .password(testPassword),
                            configuration: testConfiguration
                        )
                        try mine.write { txn in
                            guard let item = try txn.item(for: orderKey), let before = try txn.secret(for: item.id)
                            else { return }
                            let order = String(decoding: before.copyBytes(), as: UTF8.self) + "\(child)"
                            try txn.set(
                                ItemDraft(id: item.id, attributes: item.attributes, secret: SecretBytes(utf8: order))
                            )
                            status = 0
                        }
                    } catch {
                        status = 2
                    }
                    _exit(status)
                }
                try #require(pid > 0)
                children.append(pid)
                try waitForTickets(UInt64(child) + 1, path)
            }
            release.signal()
            holderDone.wait()
            for pid in children {
                var status: CInt = 0
                #expect(waitpid(pid, &status, 0) == pid)
                #expect(status == 0, "child ended with status \(status)")
            }
            #expect(try secret(in: vault, service: "order") == "1234")
        }
    }

    /// A counter that cannot be written (a full disk) costs the writer its place in the queue,
    /// never the write, and leaves no lock file behind.
    @Test func aTicketCounterThatCannotBeWritten_costsTheQueueNotTheWrite() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try Syscalls.inject(.pwrite, errno: ENOSPC, times: 100) {
                try vault.write { try $0.set(makeDraft(service: "full disk")) }
            }
            #expect(try secret(in: vault, service: "full disk") != nil)
            #expect(try directoryNames(directory) == ["test.vault"])
        }
    }
}
