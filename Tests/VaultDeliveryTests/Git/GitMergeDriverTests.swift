// VaultDelivery tests: git's merge driver opens the three versions without a prompt and screens ours.

import Foundation
import Testing
import VaultDelivery
import VaultIO

@Suite("GitMergeDriver")
struct GitMergeDriverTests {
    /// A repository's three versions: the ancestor holds `db/app`, ours and theirs are copies of it.
    private struct Branches {
        let scratch: ScratchVault
        var configuration: VaultConfiguration {
            .insecureForTesting(rollbackState: .directory(scratch.directory + "/state"))
        }
        var versions: GitMergeDriver.Versions {
            GitMergeDriver.Versions(
                ancestor: scratch.directory + "/base.vault",
                ours: scratch.vault.path,
                theirs: scratch.directory + "/theirs.vault",
                name: "team.vault"
            )
        }

        init() throws {
            scratch = try ScratchVault([("db", "app", Array("one".utf8))])
            try FileManager.default.copyItem(atPath: scratch.vault.path, toPath: scratch.directory + "/base.vault")
            try FileManager.default.copyItem(atPath: scratch.vault.path, toPath: scratch.directory + "/theirs.vault")
        }

        /// Theirs gains the generic password `service`.
        func addToTheirs(_ service: String) throws {
            let theirs = try Vault(
                path: versions.theirs,
                credentials: .password("test"),
                configuration: .insecureForTesting()
            )
            try theirs.write { txn in
                try txn.upsert(
                    .genericPassword,
                    identity: ItemAttributes(service: service, account: "app"),
                    secret: SecretBytes(bytes: Array("two".utf8))
                )
            }
        }

        /// The driver with `password` in a file, or with no credential and a prompt that must
        /// never be called (a driver runs inside git).
        func driver(password: String?) throws -> GitMergeDriver? {
            let sources = CredentialSources(
                password: try password.map { .file(try scratch.file("pw", $0)) },
                prompt: { _ in
                    Issue.record("the driver prompted")
                    return Array("test".utf8)
                }
            )
            return try GitMergeDriver(versions, sources: sources, configuration: configuration, agent: nil)
        }

        func services() throws -> [String] {
            let ours = try VaultFileReader(path: versions.ours).open(with: .password("test"))
            return try ours.items(includeSecrets: false).map(\.attributes.service).sorted()
        }
    }

    @Test func merge_takesTheirChangeIntoOurs() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        try branches.addToTheirs("web")
        let driver = try #require(try branches.driver(password: "test"))
        #expect(!driver.theirsUnderRetiredKey)
        let report = try driver.merge()
        #expect(report.added == 1)
        #expect(try branches.services() == ["db", "web"])
    }

    @Test func merge_withAnEmptyAncestor_isTwoWay() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        try Data().write(to: URL(fileURLWithPath: branches.versions.ancestor))
        try branches.addToTheirs("web")
        let report = try #require(try branches.driver(password: "test")).merge()
        #expect(report.added == 1)
        #expect(try branches.services() == ["db", "web"])
    }

    @Test func init_withoutACredentialOrAnAgent_isNil() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        #expect(try branches.driver(password: nil) == nil)
    }

    @Test func init_withAWrongPassword_throwsWrongCredential() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        #expect(throws: VaultFormatError(.wrongCredential)) { _ = try branches.driver(password: "wrong") }
    }

    @Test func init_withoutTheAncestorFile_throwsSystem() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        try FileManager.default.removeItem(atPath: branches.versions.ancestor)
        let error = try #require(throws: VaultDeliveryError.self) { _ = try branches.driver(password: "test") }
        #expect(error.code == .system)
        #expect(error.reason.contains(branches.versions.ancestor))
    }

    /// Ours put back from before a rekey this user made: merging into it would keep the retired key.
    @Test func init_withOursUnderARetiredMasterKey_refusesItAsRolledBack() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        let ours = branches.versions.ours
        let old = branches.scratch.directory + "/old.vault"
        try FileManager.default.copyItem(atPath: ours, toPath: old)
        let vault = try Vault(path: ours, credentials: .password("test"), configuration: branches.configuration)
        try vault.write { try $0.rekey(RekeyOptions(credentials: [.password("test")])) }
        try FileManager.default.removeItem(atPath: ours)
        try FileManager.default.copyItem(atPath: old, toPath: ours)
        let before = try Data(contentsOf: URL(fileURLWithPath: ours))
        let error = try #require(throws: VaultIOError.self) { _ = try branches.driver(password: "test") }
        #expect(error.code == .rolledBack)
        #expect(error.rollback?.kind == .retiredMasterKey)
        #expect(error.reason.hasPrefix("our 'team.vault' is an older copy ("), "\(error.reason)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: ours)) == before, "ours is untouched")
    }

    /// Theirs from before a rekey this user made: the driver says so, for the caller's advice.
    @Test func init_withTheirsUnderARetiredMasterKey_saysSo() throws {
        let branches = try Branches()
        defer { branches.scratch.remove() }
        let vault = try Vault(
            path: branches.versions.ours,
            credentials: .password("test"),
            configuration: branches.configuration
        )
        try vault.write { try $0.rekey(RekeyOptions(credentials: [.password("test")])) }
        let driver = try #require(try branches.driver(password: "test"))
        #expect(driver.theirsUnderRetiredKey)
    }
}
