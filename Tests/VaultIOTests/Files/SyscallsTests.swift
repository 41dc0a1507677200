// vault: `Syscalls.observe`, which the reliability suites (Reliability/, RELIABILITY.md) build on.

import Glibc
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Syscalls")
struct SyscallsTests {
    /// `Syscalls.observe` sees every step of a commit, in order (the crash-point suite relies on it).
    @Test func observe_seesEveryCommitStep() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            let calls = Mutex<[Syscall]>([])
            try Syscalls.observe({ call in calls.withLock { $0.append(call) } }) {
                try vault.write { try $0.set(makeDraft(service: "mail")) }
            }
            let seen = calls.withLock { $0 }
            let steps: [Syscall] = [.lock, .createExclusive, .write, .fsync, .close, .rename, .fsync, .unlink]
            var rest = seen[...]
            for step in steps {
                let found = rest.firstIndex(of: step)
                #expect(found != nil, "missing \(step) in \(seen)")
                if let found { rest = rest[(found + 1)...] }
            }
        }
    }
}
