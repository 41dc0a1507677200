// vault: the commit recipe under injected system-call failures.

import Foundation
import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Atomic commit")
struct AtomicWriterTests {
    /// A commit step, the fault that breaks it, and the name the error must give.
    struct Step: Sendable, CustomTestStringConvertible {
        let call: Syscall
        let after: Int
        let errno: CInt
        let operation: String
        var testDescription: String { "\(operation) (\(call) #\(after + 1) fails)" }
    }

    static let steps: [Step] = [
        Step(call: .createExclusive, after: 0, errno: EACCES, operation: "create temporary file"),
        Step(call: .fchmod, after: 0, errno: EPERM, operation: "chmod temporary file"),
        Step(call: .write, after: 0, errno: ENOSPC, operation: "write temporary file"),
        Step(call: .fsync, after: 0, errno: EIO, operation: "fsync temporary file"),
        Step(call: .rename, after: 0, errno: EXDEV, operation: "rename"),
        Step(call: .fsync, after: 1, errno: EIO, operation: "fsync directory"),
    ]

    @Test(arguments: steps)
    func failedStep_leavesOldFileAndNoTemporaryFile(_ step: Step) throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try vault.write { try $0.set(makeDraft(service: "kept")) }
            let before = try fileBytes(vault.path)
            let namesBefore = try directoryNames(directory)

            let error = try #require(throws: VaultIOError.self) {
                try Syscalls.inject(step.call, errno: step.errno, after: step.after) {
                    try vault.write { try $0.set(makeDraft(service: "lost")) }
                }
            }
            #expect(error.code == .system)
            #expect(error.operation == step.operation)
            #expect(error.errno == Errno(rawValue: step.errno))
            #expect(try fileBytes(vault.path) == before)
            #expect(try directoryNames(directory) == namesBefore)

            // Nothing is stuck: the next write commits.
            try vault.write { try $0.set(makeDraft(service: "next")) }
            #expect(try secret(in: vault, service: "next") != nil)
            #expect(try secret(in: vault, service: "lost") == nil)
        }
    }

    @Test func create_whenDirectoryFsyncFails_leavesNoVault() throws {
        try withTemporaryDirectory { directory in
            let error = try #require(throws: VaultIOError.self) {
                try Syscalls.inject(.fsync, errno: EIO, after: 1) {
                    try makeVault(in: directory, configuration: testConfiguration11)
                }
            }
            #expect(error.operation == "fsync directory")
            // A failed create leaves nothing behind, not even the lock file.
            #expect(try directoryNames(directory) == [])
        }
    }

    @Test func write_interruptedByEINTR_isRetried() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try Syscalls.inject(.write, errno: EINTR, times: 3) {
                try vault.write { try $0.set(makeDraft(service: "mail")) }
            }
            #expect(try secret(in: vault, service: "mail") == "secret of mail/alice")
        }
    }

    @Test func fsync_interruptedByEINTR_isNotRetried() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            let before = try fileBytes(vault.path)
            let error = try #require(throws: VaultIOError.self) {
                try Syscalls.inject(.fsync, errno: EINTR) {
                    try vault.write { try $0.set(makeDraft(service: "mail")) }
                }
            }
            #expect(error.operation == "fsync temporary file")
            #expect(try fileBytes(vault.path) == before)
        }
    }

    @Test func shortWrites_areContinued() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try Syscalls.limitWrites(toAtMost: 7) {
                try vault.write { try $0.set(makeDraft(service: "mail", secret: String(repeating: "x", count: 5000))) }
            }
            #expect(try secret(in: vault, service: "mail")?.count == 5000)
            #expect(try vault.read { try $0.verify().checked } == 1)
        }
    }

    @Test func injectedFault_doesNotReachOtherThreads() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            try Syscalls.inject(.fsync, errno: EIO, times: 1000) {
                let result = Mutex<Result<Void, any Error>?>(nil)
                let thread = Thread {
                    result.withLock { $0 = Result { try vault.write { try $0.set(makeDraft(service: "t")) } } }
                }
                thread.start()
                while result.withLock({ $0 == nil }) { usleep(1000) }
                try result.withLock { try $0!.get() }
            }
            #expect(try secret(in: vault, service: "t") != nil)
        }
    }

    @Test func renameWithoutRenameat2Flags_fallsBackToRenameAndLink() throws {
        try withTemporaryDirectory { directory in
            // EINVAL is what renameat2 reports on a file system without RENAME_NOREPLACE / RENAME_EXCHANGE.
            let vault = try Syscalls.inject(.rename, errno: EINVAL) {
                try makeVault(in: directory, configuration: testConfiguration11)
            }
            try Syscalls.inject(.rename, errno: EINVAL) {
                try vault.write { try $0.set(makeDraft(service: "mail")) }
            }
            #expect(try secret(in: vault, service: "mail") != nil)
            #expect(try directoryNames(directory) == ["test.vault"])
            #expect(throws: VaultIOError(.alreadyExists)) {
                try Syscalls.inject(.rename, errno: EINVAL) {
                    try makeVault(in: directory, configuration: testConfiguration11)
                }
            }
        }
    }

    @Test func staleTemporaryFiles_areRemovedUnderTheLock() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            let stale = directory + "/.test.vault.tmp-0123456789abcdef"
            let foreign = directory + "/.test.vault.tmp-notours"
            let other = directory + "/.other.vault.tmp-0123456789abcdef"
            for path in [stale, foreign, other] {
                #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])))
            }
            try vault.write { try $0.set(makeDraft(service: "mail")) }
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: foreign))
            #expect(FileManager.default.fileExists(atPath: other))
        }
    }
}
