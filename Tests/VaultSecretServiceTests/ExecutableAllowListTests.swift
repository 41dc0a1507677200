// The allow list file of Spec/secret-service.md R-SS-28.

import Testing

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
}
