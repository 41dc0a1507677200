// vault: SecretInput reads files and pipes to their end, within a limit, and SecretMemory trims.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Secret input")
struct SecretInputTests {
    @Test func aFileIsReadWhole_andOneByteOverTheLimitIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/pw"
            let bytes = (0..<10_000).map { UInt8($0 % 251) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try SecretInput.read(path: path, limit: 10_000) == bytes)
            #expect(throws: VaultIOError(.tooLarge)) { try SecretInput.read(path: path, limit: 9_999) }
            var pieces = 0
            var total = 0
            try SecretInput.forEachPiece(ofFileAt: path, limit: 10_000) {
                pieces += 1; total += $0.count
            }
            #expect(total == 10_000 && pieces >= 1)
            #expect(throws: VaultIOError(.tooLarge)) {
                try SecretInput.forEachPiece(ofFileAt: path, limit: 100) { _ in }
            }
            #expect(throws: VaultIOError(.system)) { try SecretInput.read(path: directory + "/absent", limit: 10) }
        }
    }

    @Test func aPipe_isReadToItsEnd() throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let message = Array("secret over a pipe\n".utf8)
        #expect(write(fds[1], message, message.count) == message.count)
        close(fds[1])
        defer { close(fds[0]) }
        #expect(try SecretInput.read(descriptor: fds[0], limit: 64) == message)
    }

    @Test func trimNewline_removesOneLineEnd_only() {
        for (input, output) in [("a\r\n", "a"), ("a\n\n", "a\n"), ("a", "a"), ("\n", ""), ("a\r", "a\r")] {
            var bytes = Array(input.utf8)
            SecretMemory.trimNewline(&bytes)
            #expect(bytes == Array(output.utf8), "\(input.debugDescription)")
        }
        #expect(SecretMemory.equal([1, 2, 3], [1, 2, 3]) && !SecretMemory.equal([1, 2, 3], [1, 2]))
    }
}
