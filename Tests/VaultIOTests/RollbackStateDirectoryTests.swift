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
            #expect(problem.code == .system && problem.operation.hasSuffix("rollback state"), "\(problem)")
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
