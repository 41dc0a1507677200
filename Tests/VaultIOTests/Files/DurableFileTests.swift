// vault: DurableFile.write replaces a file whole, or leaves the old one and no temporary file.

import Foundation
import Glibc
import Testing

@testable import VaultIO

@Suite("Durable file replacement")
struct DurableFileTests {
    @Test func write_replacesTheWholeFile_withMode0600_andLeavesNoTemporaryFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/config.yml"
            try Data("old and longer contents\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(chmod(path, 0o644) == 0)
            try DurableFile.write(at: path, contents: Array("new\n".utf8))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["config.yml"])
        }
    }

    @Test func write_refusesASymlinkOrADevice_andWritesNothingThrough() throws {
        try withTemporaryDirectory { directory in
            let target = directory + "/target"
            try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
            #expect(symlink(target, directory + "/out") == 0)
            #expect(throws: VaultIOError(.invalidPath)) {
                try DurableFile.write(at: directory + "/out", contents: Array("mine".utf8))
            }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
            #expect(throws: VaultIOError(.invalidPath)) { try DurableFile.write(at: "/dev/null", contents: [1]) }
            var info = stat()
            #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["out", "target"])
        }
    }

    @Test(arguments: [Syscall.fsync, .rename])
    func aFailedStep_keepsTheOldFile_andRemovesTheTemporaryOne(_ failing: Syscall) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/config.yml"
            try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
            _ = Syscalls.inject(failing, errno: EIO) {
                #expect(throws: VaultIOError(.system)) { try DurableFile.write(at: path, contents: Array("new".utf8)) }
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["config.yml"])
        }
    }
}
