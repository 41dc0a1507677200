// vault: CredentialSources.terminalPrompt, asked in a forked child whose controlling terminal is a
// pseudo-terminal this test types into.

import Glibc
import Testing
import VaultIO

@Suite("CredentialSources.terminalPrompt")
struct TerminalPromptTests {
    /// Runs `body` in a forked child in a new session, with the pseudo-terminal's other end as its
    /// controlling terminal when `terminal` is given; the child exits with `body`'s status. Returns
    /// the status and what the child wrote to `/dev/tty`, after `typed` was typed.
    private func inChild(withTerminal terminal: Bool, typed: String = "", _ body: @escaping () -> Int32) throws
        -> (status: Int32, screen: String)
    {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0)  // TIOCSPTLCK: unlock the other end
        try #require(ioctl(master, 0x8004_5430, &number) == 0)  // TIOCGPTN: its number
        let pid = fork()
        if pid == 0 {
            startChildWatchdog()
            setsid()  // no controlling terminal, until the first terminal this session opens
            if terminal {
                let slave = open("/dev/pts/\(number)", O_RDWR)
                if slave < 0 { _exit(90) }
            }
            _exit(body())
        }
        try #require(pid > 0)
        // Typed once the prompt shows: echo is off from then on.
        var screen = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        while terminal && !String(decoding: screen, as: UTF8.self).contains("PIN: ") && poll(&ready, 1, 10_000) > 0 {
            let count = read(master, &chunk, chunk.count)
            if count <= 0 { break }
            screen += chunk.prefix(count)
        }
        var bytes = Array(typed.utf8)
        _ = write(master, &bytes, bytes.count)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        let count = read(master, &chunk, chunk.count)
        screen += chunk.prefix(max(0, count))
        return ((status >> 8) & 0xff, String(decoding: screen, as: UTF8.self))
    }

    @Test func readsTheLineTyped_withoutEchoingIt() throws {
        let (status, screen) = try inChild(withTerminal: true, typed: "typed secret\r\n") {
            let line = try? CredentialSources.terminalPrompt("PIN: ")
            return line == Array("typed secret".utf8) ? 0 : 1
        }
        #expect(status == 0, "the line read, without its CR LF")
        #expect(screen.contains("PIN: "))
        #expect(!screen.contains("typed secret"), "echo is off")
    }

    @Test func withoutAControllingTerminal_returnsNil() throws {
        let (status, _) = try inChild(withTerminal: false) {
            (try? CredentialSources.terminalPrompt("PIN: ")) == .some(nil) ? 0 : 1
        }
        #expect(status == 0)
    }
}
