// vault: running test code in real child processes (fork), started together through a pipe gate.

import Glibc
import Testing

/// Forks `count` children that run `body(child)` at the same moment, waits for them, and
/// expects each to exit 0. A child exits 1 when `body` throws and dies after 30 s if hung.
///
/// Run the code paths once in the parent first, so the children do no first-time runtime work.
func runInChildProcesses(_ count: Int, _ body: (Int) throws -> Void) throws {
    var gate: [CInt] = [-1, -1]
    try #require(pipe(&gate) == 0)
    var children: [pid_t] = []
    for child in 0..<count {
        let pid = fork()
        if pid == 0 {
            // The child: never return into the test runner.
            startChildWatchdog()
            close(gate[1])
            var byte: UInt8 = 0
            _ = read(gate[0], &byte, 1)  // returns 0 when the parent closes the gate
            var status: CInt = 0
            do { try body(child) } catch { status = 1 }
            _exit(status)
        }
        try #require(pid > 0)
        children.append(pid)
    }
    close(gate[0])
    close(gate[1])  // every child starts now
    for pid in children {
        var status: CInt = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7f == 0, "child killed by signal \(status & 0x7f)")
        #expect((status >> 8) & 0xff == 0, "child failed")
    }
}

/// Makes a forked child die `seconds` from now (30 by default) if it hangs. The test runner's threads block
/// SIGALRM, and a child inherits the mask of the thread that forked, so the signal is
/// unblocked first: without it `alarm` never fired, and a child that deadlocked on a lock
/// another thread of the runner held at the fork (the Swift runtime's metadata caches) hung the
/// whole suite instead of failing its test.
func startChildWatchdog(seconds: UInt32 = 30) {
    var alarmOnly = sigset_t()
    sigemptyset(&alarmOnly)
    sigaddset(&alarmOnly, SIGALRM)
    pthread_sigmask(SIG_UNBLOCK, &alarmOnly, nil)
    signal(SIGALRM, SIG_DFL)
    alarm(seconds)
}

@Suite("Forked test children")
struct ChildWatchdogTests {
    /// The watchdog must work in a child of a runner thread that blocks SIGALRM.
    @Test func aHungChild_isKilledByItsWatchdog() throws {
        let pid = fork()
        if pid == 0 {
            startChildWatchdog(seconds: 1)
            while true { pause() }
        }
        try #require(pid > 0)
        var status: CInt = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7f == SIGALRM, "the child ended with status \(status)")
    }
}
