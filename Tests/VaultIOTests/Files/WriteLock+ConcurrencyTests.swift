// vault: the write lock across threads and processes.

import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test func writer_whileAnotherHoldsTheLock_timesOut() throws {
        try withTemporaryDirectory { directory in
            let holder = try makeVault(in: directory)
            var quick = testConfiguration
            quick.lockTimeout = .milliseconds(200)
            let waiter = try Vault(path: holder.path, credentials: .password(testPassword), configuration: quick)

            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                // A second Vault value opens its own descriptor, so this is the cross-process case.
                _ = try? holder.write { _ in
                    entered.signal()
                    release.wait()
                }
                done.signal()
            }
            entered.wait()
            let start = ContinuousClock.now
            let error = try #require(throws: VaultIOError.self) {
                try waiter.write { try $0.set(makeDraft(service: "blocked")) }
            }
            let waited = ContinuousClock.now - start
            release.signal()
            done.wait()

            #expect(error.code == .lockTimeout)
            #expect(error.path == holder.path + ".lock")
            #expect(waited >= .milliseconds(200) && waited < .seconds(2))
            // Once the holder is gone the same writer gets through.
            try waiter.write { try $0.set(makeDraft(service: "after")) }
            #expect(try secret(in: holder, service: "after") != nil)
        }
    }

    @Test func manyThreads_writingDifferentItems_allLand() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<25 {
                    do {
                        try vault.write { try $0.set(makeDraft(service: "thread-\(thread)", account: "\(index)")) }
                    } catch {
                        failures.withLock { $0.append("\(thread)/\(index): \(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let (count, generation) = try vault.read { (try $0.index.entries.count, $0.header.generation) }
            #expect(count == 200)
            #expect(generation == 201)
            #expect(try secret(in: vault, service: "thread-7", account: "24") == "secret of thread-7/24")
        }
    }

    @Test func threadsWithTheirOwnVaults_serializeThroughTheLockFile() throws {
        try withTemporaryDirectory { directory in
            let path = try makeVault(in: directory).path
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                do {
                    // Separate Vault values share no mutex: only the OFD lock orders them.
                    let own = try Vault(
                        path: path,
                        credentials: .password(testPassword),
                        configuration: testConfiguration
                    )
                    for index in 0..<10 {
                        try own.write { try $0.set(makeDraft(service: "own-\(thread)", account: "\(index)")) }
                    }
                } catch {
                    failures.withLock { $0.append("\(thread): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let vault = try Vault(path: path, credentials: .password(testPassword), configuration: testConfiguration)
            #expect(try vault.read { try $0.index.entries.count } == 40)
        }
    }

    @Test func twoProcesses_writingDifferentItems_bothKeepTheirs() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            // Run every code path once in this process, so the children do no first-time runtime work.
            try vault.write { try $0.set(makeDraft(service: "parent")) }
            let path = vault.path
            let writesPerChild = 10

            var gate: [CInt] = [-1, -1]
            try #require(pipe(&gate) == 0)
            var children: [pid_t] = []
            for child in 0..<2 {
                let pid = fork()
                if pid == 0 {
                    // The child: never return into the test runner.
                    startChildWatchdog()  // a hung child dies rather than hanging the suite
                    close(gate[1])
                    var byte: UInt8 = 0
                    _ = read(gate[0], &byte, 1)  // returns 0 when the parent closes the gate
                    var status: CInt = 0
                    do {
                        let mine = try Vault(
                            path: path,
                            credentials: .password(testPassword),
                            configuration: testConfiguration
                        )
                        for index in 0..<writesPerChild {
                            try mine.write { try $0.set(makeDraft(service: "process-\(child)", account: "\(index)")) }
                        }
                    } catch {
                        status = 1
                    }
                    _exit(status)
                }
                try #require(pid > 0)
                children.append(pid)
            }
            close(gate[0])
            close(gate[1])  // both children start writing now
            for pid in children {
                var status: CInt = 0
                #expect(waitpid(pid, &status, 0) == pid)
                #expect(status & 0x7f == 0, "child killed by signal \(status & 0x7f)")
                #expect((status >> 8) & 0xff == 0, "child failed")
            }
            let services = try vault.read { try $0.items(includeSecrets: false).map(\.attributes.service) }
            #expect(services.count == 1 + 2 * writesPerChild)
            #expect(services.filter { $0 == "process-0" }.count == writesPerChild)
            #expect(services.filter { $0 == "process-1" }.count == writesPerChild)
        }
    }
}
