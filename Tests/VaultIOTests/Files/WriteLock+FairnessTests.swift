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
                    startChildWatchdog()  // a hung child dies rather than hanging the suite
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

    /// Takes OFD write locks on `ranges` of `<vault>.lock` through a descriptor of its own, as
    /// another process would (`F_OFD_SETLK` is 37 on Linux); returns the descriptor.
    func holdRanges(_ vaultPath: String, _ ranges: [(start: Int, length: Int)]) throws -> CInt {
        let descriptor = open(vaultPath + ".lock", O_RDWR | O_CREAT, 0o600)
        try #require(descriptor >= 0)
        for range in ranges {
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = off_t(range.start)
            lock.l_len = off_t(range.length)
            try #require(fcntl(descriptor, 37, &lock) == 0)
        }
        return descriptor
    }

    /// A writer ahead in the queue that stopped (SIGSTOP, a debugger) while nobody holds the lock
    /// does not make the writers behind it time out: they stop waiting for it.
    @Test func aStoppedWaiterAhead_isPassed_insteadOfTimingOutTheWritersBehind() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            // The stopped waiter: ticket 0 taken (its slot, byte 16, held; the counter at 1),
            // neither the ticket lock nor the holder lock held.
            let stopped = try holdRanges(vault.path, [(16, 1)])
            defer { close(stopped) }
            var one: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0]
            #expect(pwrite(stopped, &one, 8, 0) == 8)
            var patient = testConfiguration
            patient.lockTimeout = .seconds(4)
            let behind = try Vault(path: vault.path, credentials: .password(testPassword), configuration: patient)
            let started = ContinuousClock.now
            try behind.write { try $0.set(makeDraft(service: "behind")) }
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(try secret(in: vault, service: "behind") != nil)
        }
    }

    /// Many writers timing out together leave at most the wait limit of threads and lock-file
    /// descriptors behind, not one each.
    @Test func manyWritersTimingOutTogether_leaveAtMostTheWaitLimitBehind() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            // Another process holds the ticket lock: every writer waits for it.
            let blocker = try holdRanges(vault.path, [(0, 8)])
            var quick = testConfiguration
            quick.lockTimeout = .milliseconds(300)
            let configuration = quick
            let writers = 100
            let done = DispatchGroup()
            let timeouts = Mutex(0)
            for number in 0..<writers {
                done.enter()
                Thread.detachNewThread {
                    defer { done.leave() }
                    do {
                        let own = try Vault(
                            path: vault.path,
                            credentials: .password(testPassword),
                            configuration: configuration
                        )
                        try own.write { try $0.set(makeDraft(service: "w\(number)")) }
                    } catch let error as VaultIOError where error.code == .lockTimeout {
                        timeouts.withLock { $0 += 1 }
                    } catch {}
                }
            }
            done.wait()
            #expect(timeouts.withLock { $0 } == writers)
            let lockFile = try #require(realpath(vault.path + ".lock", nil).map { String(cString: $0) })
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) == lockFile
            }
            // The blocker's own descriptor, plus at most 64 waits still in the kernel.
            #expect(open.count <= 65, "\(open.count) descriptors of the lock file are open")
            close(blocker)
        }
    }

    /// A lock file that is a symbolic link or a directory is refused with the fix, as a FIFO is.
    @Test func aLockFileThatIsASymlinkOrADirectory_isRefusedWithTheFix() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(symlink(directory + "/elsewhere", vault.path + ".lock") == 0)
            let link = try #require(throws: VaultIOError.self) {
                try vault.write { try $0.set(makeDraft(service: "a")) }
            }
            #expect(link.code == .untrustedLockFile)
            #expect(link.reason.contains("is a symbolic link") && link.reason.contains("remove it"))
            #expect(unlink(vault.path + ".lock") == 0 && mkdir(vault.path + ".lock", 0o700) == 0)
            let folder = try #require(throws: VaultIOError.self) {
                try vault.write { try $0.set(makeDraft(service: "a")) }
            }
            #expect(folder.code == .untrustedLockFile && folder.reason.contains("is a directory"))
            let keychain = Keychain(service: "s", vault: vault)
            #expect {
                try keychain.set("v", forKey: "k")
            } throws: { error in
                guard case .invalidParameter(let reason) = error as? KeychainError else { return false }
                return reason.contains("is a directory")
            }
        }
    }
}
