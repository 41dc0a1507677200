// vault: the Vault API: create, open, read, write, transactions, modes, paths.

import Foundation
import Glibc
import Testing
import VaultFormat
import VaultIO

@Suite("Vault")
struct VaultTests {
    @Test func createOpenWriteRead_roundTrip() throws {
        try withTemporaryDirectory { directory in
            let created = try makeVault(in: directory)
            try created.write { txn in
                try txn.set(makeDraft(service: "mail"))
                try txn.set(makeDraft(service: "bank", secret: "hunter2"))
            }
            let opened = try Vault(
                path: directory + "/test.vault",
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(opened.vaultID == created.vaultID)
            #expect(try secret(in: opened, service: "bank") == "hunter2")
            #expect(try secret(in: opened, service: "mail") == "secret of mail/alice")
            #expect(try opened.read { $0.header.generation } == 2)
            #expect(try opened.read { try $0.verify().checked } == 2)
        }
    }

    @Test func open_withWrongPassword_throwsWrongCredential() throws {
        try withTemporaryDirectory { directory in
            _ = try makeVault(in: directory)
            #expect(throws: VaultFormatError(.wrongCredential)) {
                try Vault(
                    path: directory + "/test.vault",
                    credentials: .password("wrong"),
                    configuration: testConfiguration
                )
            }
        }
    }

    @Test func open_missingFile_throwsResolvePathWithENOENT() throws {
        try withTemporaryDirectory { directory in
            let error = try #require(throws: VaultIOError.self) {
                try Vault(path: directory + "/none.vault", credentials: .password(testPassword))
            }
            #expect(error.errno == .noSuchFileOrDirectory)
            #expect(error.operation == "resolve path")
        }
    }

    @Test func create_whenFileExists_throwsAlreadyExistsAndKeepsFile() throws {
        try withTemporaryDirectory { directory in
            _ = try makeVault(in: directory)
            let before = try fileBytes(directory + "/test.vault")
            #expect(throws: VaultIOError(.alreadyExists)) { try makeVault(in: directory) }
            #expect(try fileBytes(directory + "/test.vault") == before)
            #expect(try directoryNames(directory) == ["test.vault"])
        }
    }

    @Test func create_withWeakKDFOutsideTestingSPI_throwsKDFRejected() throws {
        try withTemporaryDirectory { directory in
            let weak = VaultConfiguration(kdf: KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1))
            #expect(throws: VaultFormatError(.kdfRejected)) { try makeVault(in: directory, configuration: weak) }
            let names = try directoryNames(directory)
            #expect(!names.contains("test.vault"))
        }
    }

    @Test func write_whenBodyThrows_commitsNothing() throws {
        struct Abort: Error {}
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "kept")) }
            let before = try fileBytes(vault.path)
            #expect(throws: Abort.self) {
                try vault.write { txn in
                    try txn.set(makeDraft(service: "lost"))
                    try txn.remove(id: try #require(try txn.item(for: primaryKey(service: "kept"))).id)
                    throw Abort()
                }
            }
            #expect(try fileBytes(vault.path) == before)
            #expect(try secret(in: vault, service: "lost") == nil)
        }
    }

    @Test func write_withoutChanges_leavesFileUntouched() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let before = try fileBytes(vault.path)
            let count = try vault.write { txn in txn.count }
            #expect(count == 0)
            #expect(try fileBytes(vault.path) == before)
        }
    }

    /// Versions are generations in format 1.1 (format 3: `Format3VersionTests`).
    @Test func transaction_seesItsOwnChangesAndChecksVersions() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory, configuration: testConfiguration11)
            let draft = makeDraft(service: "mail")
            try vault.write { txn in try txn.set(draft, expecting: .absent) }
            let version = try vault.read { try #require($0.index.entries.first).version }
            #expect(version == 2)
            try vault.write { txn in
                let item = try #require(try txn.item(for: primaryKey(service: "mail")))
                #expect(item.id == draft.id)
                #expect(item.attributes.service == "mail")
                #expect(try txn.secret(for: item.id)?.copyBytes() == Array("secret of mail/alice".utf8))
                try txn.set(makeDraft(service: "bank"))
                #expect(try txn.item(for: primaryKey(service: "bank"))?.version == txn.generation)
            }
            // The item is now at version 2 while the writer expects 1: a conflict, and nothing commits.
            let before = try fileBytes(vault.path)
            #expect(throws: VaultIOError(.conflict)) {
                try vault.write { txn in try txn.set(draft, expecting: .version(1)) }
            }
            #expect(throws: VaultIOError(.conflict)) {
                try vault.write { txn in try txn.remove(id: draft.id, expecting: .absent) }
            }
            #expect(try fileBytes(vault.path) == before)
            let removed = try vault.write { txn in try txn.remove(id: draft.id, expecting: .version(2)) }
            #expect(removed)
            #expect(try vault.read { try $0.index.deletions.map(\.itemID) } == [draft.id])
        }
    }

    @Test func create_makesMode0600_andWriteKeepsMode0640() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            #expect(permissions(vault.path) == 0o600)
            // The lock file exists while a writer holds it, with mode 0600.
            try vault.write { _ in #expect(permissions(vault.path + ".lock") == 0o600) }
            #expect(chmod(vault.path, 0o640) == 0)
            try vault.write { try $0.set(makeDraft(service: "mail")) }
            #expect(permissions(vault.path) == 0o640)
            #expect(try secret(in: vault, service: "mail") != nil)
        }
    }

    @Test func open_throughSymlink_writesTheTargetAndKeepsTheLink() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let link = directory + "/link.vault"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "test.vault")
            let viaLink = try Vault(path: link, credentials: .password(testPassword), configuration: testConfiguration)
            #expect(viaLink.path == vault.path)
            try viaLink.write { try $0.set(makeDraft(service: "mail")) }
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "test.vault")
            #expect(try secret(in: vault, service: "mail") != nil)
            #expect(!FileManager.default.fileExists(atPath: link + ".lock"))
        }
    }

    @Test func read_afterPathNowHoldsAnotherVault_throwsConflict() throws {
        try withTemporaryDirectory { directory in
            let first = try makeVault(in: directory, name: "a.vault")
            _ = try makeVault(in: directory, name: "b.vault")
            #expect(rename(directory + "/b.vault", directory + "/a.vault") == 0)
            #expect(throws: VaultIOError(.conflict)) { try first.read { _ in } }
            #expect(throws: VaultIOError(.conflict)) { try first.write { _ in } }
        }
    }

    @Test func snapshot_keepsReadingItsGenerationAfterACommit() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { try $0.set(makeDraft(service: "old")) }
            let snapshot = try vault.read { $0 }
            try vault.write { txn in
                try txn.remove(id: try #require(try txn.item(for: primaryKey(service: "old"))).id)
                try txn.set(makeDraft(service: "new"))
            }
            let items = try snapshot.items(includeSecrets: true)
            #expect(items.map(\.attributes.service) == ["old"])
            #expect(try vault.read { try $0.items(includeSecrets: false).map(\.attributes.service) } == ["new"])
        }
    }
}
