// vault: a failed `close` of the write lock's descriptor after a durable commit. Found by the
// reliability suites (Reliability/, RELIABILITY.md).

import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Write lock: a failed close")
struct WriteLockCloseTests {
    /// Found by the I/O-error suite (suite 4): a failed `close` of the write lock's descriptor,
    /// after the commit was durable, made `write` throw a bare `Errno`, so a caller that retried
    /// applied its change twice. The lock is released by `close` whatever it reports.
    @Test func failedCloseOfLockFile_afterCommit_reportsSuccess() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let closes = Mutex(0)
            try Syscalls.observe({ call in if call == .close { closes.withLock { $0 += 1 } } }) {
                try vault.write { try $0.set(makeDraft(service: "first")) }
            }
            let count = closes.withLock { $0 }
            // The write lock's descriptor is the last one a write closes.
            try Syscalls.inject(.close, errno: EIO, after: count - 1) {
                try vault.write { try $0.set(makeDraft(service: "second")) }
            }
            #expect(try secret(in: vault, service: "second") != nil)
            // The lock was released: the next write does not wait for it.
            try vault.write { try $0.set(makeDraft(service: "third")) }
            #expect(try secret(in: vault, service: "third") != nil)
        }
    }
}
