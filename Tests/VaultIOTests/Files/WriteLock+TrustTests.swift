// vault: a lock file that another user could hold is refused; shared directories are reported (issue 9, section 5).

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Lock file trust")
struct LockFileTrustTests {
    private func addItem(_ vault: Vault, _ service: String) throws {
        try vault.write { try $0.set(makeDraft(service: service)) }
    }

    /// Creates `<vault>.lock` as someone who got there first would: writers remove their own
    /// lock file when they finish, so none is left by `makeVault`.
    private func precreateLockFile(_ path: String) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        #expect(descriptor >= 0)
        close(descriptor)
    }

    /// Another user pre-creates `<vault>.lock` (here: root gives it away to uid 54321).
    @Test(.enabled(if: geteuid() == 0, "chown needs root"))
    func lockFileOfAnotherUser_isRefused_andVaultUntouched() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let lockPath = vault.path + ".lock"
            precreateLockFile(lockPath)
            #expect(chown(lockPath, 54321, 54321) == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: vault.path))
            let error = try #require(throws: VaultIOError.self) { try addItem(vault, "blocked") }
            #expect(error.code == .untrustedLockFile)
            #expect(error.path == lockPath)
            #expect(error.reason.contains("belongs to another user (uid 54321)"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.path)) == before)
        }
    }

    /// Root writing a user's vault: the lock file belongs to the vault's owner, which is fine.
    @Test(.enabled(if: geteuid() == 0, "chown needs root"))
    func lockFileOfTheVaultsOwner_isAccepted() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(chown(vault.path, 54321, 54321) == 0)
            precreateLockFile(vault.path + ".lock")
            #expect(chown(vault.path + ".lock", 54321, 54321) == 0)
            try addItem(vault, "allowed")
            #expect(try vault.read { try $0.items(includeSecrets: false).count } == 1)
        }
    }

    @Test func lockFileReadableByOthers_isRefused_untilChmod600() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let lockPath = vault.path + ".lock"
            precreateLockFile(lockPath)
            #expect(chmod(lockPath, 0o644) == 0)
            let error = try #require(throws: VaultIOError.self) { try addItem(vault, "blocked") }
            #expect(error.code == .untrustedLockFile)
            #expect(error.reason.contains("has mode 644"))
            #expect(error.reason.contains("chmod 600"))
            #expect(chmod(lockPath, 0o600) == 0)
            try addItem(vault, "after")
        }
    }

    @Test func lockFileThatIsAFIFO_isRefused() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let lockPath = vault.path + ".lock"
            #expect(mkfifo(lockPath, 0o600) == 0)
            #expect(throws: VaultIOError(.untrustedLockFile)) { try addItem(vault, "blocked") }
        }
    }

    @Test func locationWarnings_reportGroupOrWorldWritableDirectory() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(chmod(directory, 0o700) == 0)
            #expect(vault.locationWarnings.isEmpty)
            #expect(chmod(directory, 0o1777) == 0)
            let warnings = vault.locationWarnings
            #expect(warnings.map(\.kind) == [.sharedDirectory])
            #expect(warnings.first?.description.contains("(mode 1777) is writable by every user") == true)
            #expect(chmod(directory, 0o770) == 0)
            #expect(vault.locationWarnings.first?.description.contains("writable by its group") == true)
            #expect(chmod(directory, 0o700) == 0)
        }
    }
}
