// The allow list file of Spec/secret-service.md R-SS-28.

import Foundation
import Glibc
import Testing
import VaultIO

@testable import VaultSecretService

@Suite struct ExecutableAllowListTests {
    let digest = (0..<32).map { UInt8($0 * 7) }

    @Test func entriesRoundTripThroughTheFileText() throws {
        var list = ExecutableAllowList()
        list.allow(path: "/usr/bin/secret-tool", digest: digest)
        list.allow(path: "/opt/my tool", digest: [UInt8](repeating: 0xab, count: 32))
        let parsed = try #require(ExecutableAllowList(parsing: "# allowed\n\n" + list.text))
        #expect(parsed == list)
        #expect(parsed.allows(path: "/usr/bin/secret-tool", digest: digest))
        #expect(!parsed.allows(path: "/usr/bin/secret-tool", digest: [UInt8](repeating: 0xab, count: 32)))
        #expect(!parsed.allows(path: "/usr/bin/other", digest: digest))
    }

    @Test func allowingAgainReplacesAndDisallowRemoves() {
        var list = ExecutableAllowList()
        list.allow(path: "/bin/a", digest: digest)
        list.allow(path: "/bin/a", digest: [UInt8](repeating: 1, count: 32))
        #expect(list.entries.count == 1 && list.allows(path: "/bin/a", digest: [UInt8](repeating: 1, count: 32)))
        let removed = list.disallow(path: "/bin/a")
        #expect(removed && list.entries.isEmpty)
        let again = list.disallow(path: "/bin/a")
        #expect(!again)
    }

    @Test(arguments: [
        "/usr/bin/secret-tool\n",
        "sha256:00 /usr/bin/x\n",
        "sha256:" + String(repeating: "A", count: 64) + " /usr/bin/x\n",
        "sha256:" + String(repeating: "0", count: 64) + " relative/path\n",
        "sha256:" + String(repeating: "0", count: 64) + "\n",
    ])
    func anythingElseMakesTheFileInvalid(_ text: String) {
        #expect(ExecutableAllowList(parsing: text) == nil)
    }

    @Test func update_allowsByDigest_disallows_andWritesAPrivateList() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("allow-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/vault/secret-service-executables"
        let program = "/bin/sh"
        let report = try ExecutablePolicy.update(at: path, allow: ["sh"], disallow: ["nothing-listed"]) { name in
            name == "sh" ? program : name
        }
        let fd = open(program, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let digest = try #require(ExecutableAllowList.digest(ofFileAt: fd))
        #expect(
            report == "allowed \(program) (sha256:\(ExecutableAllowList.hex(digest)))\nnot listed: nothing-listed\n"
        )
        #expect(try ExecutablePolicy(path: path).list.allows(path: program, digest: digest))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        let removed = try ExecutablePolicy.update(at: path, allow: [], disallow: ["sh"]) { _ in program }
        #expect(removed == "disallowed \(program)\n")
        #expect(try ExecutablePolicy(path: path).list.entries.isEmpty)
    }

    @Test func update_ofAFileThatIsNotAList_changesNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("allow-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/list"
        try Data("not a list\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(throws: AllowListError.self) {
            try ExecutablePolicy.update(at: path, allow: ["/bin/sh"], disallow: []) { $0 }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a list\n")
    }

    @Test func update_ofAnExecutableThatCannotBeRead_isUnreadableInput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("allow-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: VaultIOError(.unreadableInput)) {
            try ExecutablePolicy.update(at: directory + "/list", allow: ["/nonexistent/program"], disallow: []) { $0 }
        }
    }
}
