// vault: the rollback record's directory must be one only this user can change (L-RB-9), and a
// record that cannot be kept stops writes, not reads (L-RB-10).

import Foundation
import Glibc
import Testing
import VaultIO

@Suite("Rollback state directory")
struct RollbackStateDirectoryTests {
    private func configuration(_ stateDirectory: String) -> VaultConfiguration {
        .insecureForTesting(rollbackState: .directory(stateDirectory))
    }

    private func open(_ path: String, _ stateDirectory: String) throws -> Vault {
        try Vault(path: path, credentials: .password(testPassword), configuration: configuration(stateDirectory))
    }

    /// Before, a `seen` directory others could write was used as it was: another user could
    /// delete the record, and a rolled-back copy then opened and took writes with no warning.
    @Test func aStateDirectoryOthersCanWrite_isRefusedForReadsAndWrites() throws {
        try withTemporaryDirectory { directory in
            let state = directory + "/state"
            let vault = try makeVault(in: directory, configuration: configuration(state))
            try vault.write { try $0.set(makeDraft(service: "a")) }
            #expect(chmod(state, 0o777) == 0)
            let error = try #require(throws: VaultIOError.self) { try open(vault.path, state) }
            #expect(error.code == .rollbackStateInvalid)
            #expect(error.path == state)
            #expect(error.reason.contains("others can write it") && error.reason.contains("mode 777"))
            #expect(error.reason.contains("VaultConfiguration.rollbackState"))
            #expect(throws: VaultIOError(.rollbackStateInvalid)) {
                try vault.write { try $0.set(makeDraft(service: "b")) }
            }
            #expect(chmod(state, 0o700) == 0)
            _ = try open(vault.path, state)
        }
    }

    /// A directory above the record that others can write lets them rename the record's folder
    /// away; a symbolic link is judged by where it leads.
    @Test func aParentOthersCanWrite_orALinkToSuchADirectory_isRefused() throws {
        try withTemporaryDirectory { directory in
            let parent = directory + "/shared"
            #expect(mkdir(parent, 0o700) == 0)
            let vault = try makeVault(in: directory, configuration: configuration(parent + "/seen"))
            #expect(chmod(parent, 0o777) == 0)
            let error = try #require(throws: VaultIOError.self) { try open(vault.path, parent + "/seen") }
            #expect(error.code == .rollbackStateInvalid && error.path == parent)
            // The sticky bit (as on /tmp) keeps others from renaming what is ours: trusted.
            #expect(chmod(parent, 0o1777) == 0)
            _ = try open(vault.path, parent + "/seen")
            // A link to a directory others can write is no better than that directory.
            let open777 = directory + "/open"
            #expect(mkdir(open777, 0o700) == 0 && chmod(open777, 0o777) == 0)
            #expect(symlink(open777, directory + "/linked") == 0)
            let linked = try #require(throws: VaultIOError.self) { try self.open(vault.path, directory + "/linked") }
            #expect(linked.code == .rollbackStateInvalid)
        }
    }

    /// Found by an attack: a link that another user owns, in a sticky directory, passed the check
    /// (only where it led was examined); its owner repointed it at another directory of the
    /// victim's, the record was not found there, and a rolled-back copy took writes silently.
    /// Making a link of another user needs root: CI runs the tests as root.
    @Test(.enabled(if: geteuid() == 0, "lchown to another user needs root"))
    func aLinkOfAnotherUser_onTheWayToTheRecord_isRefused() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: configuration(directory + "/state"))
            let link = directory + "/squatted"
            #expect(symlink(directory + "/state", link) == 0)
            #expect(lchown(link, 65534, 65534) == 0)
            let error = try #require(throws: VaultIOError.self) { try open(vault.path, link) }
            #expect(error.code == .rollbackStateInvalid && error.path == link)
            #expect(error.reason.contains("symbolic link of another user"))
            // A missing record directory below such a link is refused as well.
            #expect(throws: VaultIOError(.rollbackStateInvalid)) { try self.open(vault.path, link + "/below") }
            // Reached through a link of the user's own (the second attack): still refused.
            #expect(symlink(link, directory + "/mine") == 0)
            let chained = try #require(throws: VaultIOError.self) { try self.open(vault.path, directory + "/mine") }
            #expect(chained.code == .rollbackStateInvalid && chained.path == link)
            // A directory of another user passed through with `..` is judged too.
            let theirs = directory + "/theirs"
            #expect(mkdir(theirs, 0o755) == 0 && chown(theirs, 65534, 65534) == 0)
            let dotted = try #require(throws: VaultIOError.self) { try self.open(vault.path, theirs + "/../state") }
            #expect(dotted.code == .rollbackStateInvalid && dotted.path == theirs)
            // The same link owned by the user is fine.
            #expect(lchown(link, geteuid(), getegid()) == 0)
            _ = try open(vault.path, link)
        }
    }

    /// A missing record directory is judged by the directories above it.
    @Test func aMissingRecordDirectory_underADirectoryOthersCanWrite_isRefused() throws {
        try withTemporaryDirectory { directory in
            let shared = directory + "/shared"
            #expect(mkdir(shared, 0o700) == 0 && chmod(shared, 0o777) == 0)
            let vault = try makeVault(in: directory)
            let error = try #require(throws: VaultIOError.self) { try open(vault.path, shared + "/vault/seen") }
            #expect(error.code == .rollbackStateInvalid && error.path == shared)
        }
    }

    /// Before, an account whose record cannot be created (no home, a read-only one) could not
    /// even read: "create directory …: Permission denied", naming no setting.
    @Test func aRecordThatCannotBeCreated_letsReadsThrough_andStopsWritesNamingTheSetting() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try Keychain(service: "api", vault: vault).set("token", forKey: "bot")
            // A regular file where a directory would be: mkdir fails for root as for anyone.
            try Data().write(to: URL(fileURLWithPath: directory + "/file"))
            let unusable = directory + "/file/seen"
            let reader = try open(vault.path, unusable)
            let problem = try #require(reader.rollbackStateError)
            #expect(problem.code == .system && problem.operation.contains("rollback state"), "\(problem)")
            #expect(problem.reason.contains("VaultConfiguration.rollbackState"))
            #expect(try Keychain(service: "api", vault: reader).string(forKey: "bot") == "token")
            let write = try #require(throws: VaultIOError.self) {
                try reader.write { try $0.set(makeDraft(service: "new")) }
            }
            #expect(write.code == .system && write.reason.contains("VaultConfiguration.rollbackState"))
            // With a record it can keep, the same vault reports nothing.
            #expect(try open(vault.path, directory + "/state").rollbackStateError == nil)
        }
    }
}
