// vaulttool tests: no `<vault>.lock` is left beside a vault (issue 12, section 3).

import Foundation
import Testing

@Suite("lock file beside the vault")
struct LockFileCLITests {
    func names(_ w: Workspace) throws -> [String] {
        // Hidden entries are the workspace's own state (XDG_STATE_HOME for the rollback record).
        try FileManager.default.contentsOfDirectory(atPath: w.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func createSetRemove_andAFailedCreate_leaveOnlyTheVault() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(try names(w) == ["pw", "v.vault"])
        try w.set("s3cret", ["--service", "s", "--account", "a"])
        let remove = try w.run(["rm", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(remove.status == 0)
        let again = try w.run(["create", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(again.status == 1)
        let wrong = try w.run(["create", "--password-file", "missing-pw"] + Workspace.fastKDF + ["w.vault"])
        #expect(wrong.status != 0)
        #expect(try names(w) == ["pw", "v.vault"])
    }
}
