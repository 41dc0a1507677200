// vaulttool: shared-directory warnings and untrusted lock files (issue 9, section 5).

import Foundation
import Glibc
import Testing

@Suite("Lock file and shared directories")
struct LockFileCommandTests {
    @Test func write_inWorldWritableDirectory_warnsOnStderr_andSucceeds() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(chmod(w.path, 0o1777) == 0)
        defer { chmod(w.path, 0o700) }
        let result = try w.run(["set", "--password-file", "pw", "--service", "s", "v.vault"], stdin: "x")
        #expect(result.status == 0)
        #expect(
            result.stderr.hasPrefix("Warning: the vault's directory '\(w.path)' (mode 1777) is writable by every user")
        )
        let read = try w.run(["get", "--password-file", "pw", "--service", "s", "v.vault"])
        #expect(read.stderr == "")
    }

    @Test func write_withReadableLockFile_failsNamingTheFileAndTheFix() throws {
        let w = try Workspace()
        try w.makeVault()
        // Another program left a lock file others can open (writers remove their own).
        #expect(FileManager.default.createFile(atPath: w.file("v.vault.lock"), contents: nil))
        #expect(chmod(w.file("v.vault.lock"), 0o644) == 0)
        let result = try w.run(["set", "--password-file", "pw", "--service", "s", "v.vault"], stdin: "x")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: The lock file '\(w.path)/v.vault.lock' has mode 644, so other users can open it and "
                + "block every write; run chmod 600 on it\n"
        )
    }
}
