// VaultDelivery tests: what git-setup writes into a repository, once.

import Foundation
import Testing

@testable import VaultDelivery

@Suite("GitRepositorySetup")
struct GitRepositorySetupTests {
    @Test func lines_andConfigValues() {
        #expect(
            GitRepositorySetup.ignoreLines("team/*.vault") == [
                "team/*.vault.lock", "team/.*.vault.tmp-*", "team/*.vault.backup-*",
            ]
        )
        var setup = GitRepositorySetup(repository: ".", patterns: ["*.vault"], program: "/opt/v%1/vaulttool")
        setup.driverOptions = ["--key-file", "/k/my key"]
        let values = Dictionary(uniqueKeysWithValues: setup.configValues.map { ($0.key, $0.value) })
        #expect(values["merge.vault.driver"] == "/opt/v%%1/vaulttool git-merge --key-file '/k/my key' %O %A %B %P")
        #expect(values["diff.vault.textconv"] == "/opt/v%1/vaulttool git-diff --key-file '/k/my key'")
        #expect(
            GitRepositorySetup.attributesMatch(
                "*.vault\tdiff=vault -text merge=vault",
                "*.vault -text merge=vault diff=vault"
            )
        )
        #expect(!GitRepositorySetup.isPlainPattern("#x"))
    }

    @Test func apply_writesOnceAndKeepsWhatIsThere() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try GitRepositorySetup.git(["init", "-q", scratch.directory], failure: "init")
        _ = try scratch.file(".gitignore", "build/")
        let setup = GitRepositorySetup(repository: scratch.directory, patterns: ["*.vault"], program: "vaulttool")
        let first = try setup.apply()
        #expect(first.changes.contains(".gitattributes: *.vault -text merge=vault diff=vault"))
        #expect(first.changes.contains("git config diff.vault.cachetextconv false"))
        let ignore = try String(contentsOfFile: scratch.directory + "/.gitignore", encoding: .utf8)
        #expect(ignore.hasPrefix("build/\n*.vault.lock\n"))
        #expect(try setup.apply().changes.isEmpty)
    }

    @Test func apply_outsideARepository_isGitsRefusal() {
        var setup = GitRepositorySetup(repository: "/", patterns: ["*.vault"], program: "vaulttool")
        setup.dryRun = true
        #expect(throws: VaultDeliveryError(.commandFailed)) { try setup.apply() }
    }
}
