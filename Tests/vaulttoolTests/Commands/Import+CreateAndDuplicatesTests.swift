// vaulttool tests: `import --create`, and KeePassXC entries that share a title and user (issue 12, section 3).

import Foundation
import Testing

@Suite("import: --create and duplicates")
struct ImportCreateAndDuplicatesTests {
    static let header = "\"Group\",\"Title\",\"Username\",\"Password\",\"URL\",\"Notes\"\n"

    /// Two `db`/`app` entries in different groups, one in the root group.
    static let sameTitleInTwoGroups =
        header + """
            "Root/Work","db","app","work-secret","",""
            "Root/Personal","db","app","home-secret","",""
            "Root","db","app","root-secret","",""

            """

    func secrets(_ w: Workspace) throws -> [String: String] {
        let export = try w.run(["export", "--password-file", "pw", "v.vault"])
        let items = try #require(try export.json()["items"] as? [[String: Any]])
        return Dictionary(
            uniqueKeysWithValues: items.map { ($0["accessGroup"] as? String ?? "", $0["secret"] as? String ?? "") }
        )
    }

    @Test func importIntoAMissingVault_namesCreate() throws {
        let w = try Workspace()
        let result = try w.run([
            "import", "--password-file", "pw", "--from", "csv", Tool.data("generic.csv"), "missing.vault",
        ])
        #expect(result.status == 7)
        #expect(result.stderr.contains("There is no vault at 'missing.vault'"))
        #expect(result.stderr.contains("--create"))
        #expect(!result.stderr.contains("resolve path failed"))
    }

    @Test func importCreate_createsTheVault_withTheKDFOptions() throws {
        let w = try Workspace()
        let result = try w.run(
            ["import", "--create", "--password-file", "pw", "--from", "csv"] + Workspace.fastKDF
                + [Tool.data("generic.csv"), "new.vault"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Created "))
        #expect(result.stdout.contains("Argon2id 19 MiB, 2 passes, 1 lane"))
        #expect(result.stdout.contains("Imported 3 items"))
        let inspect = try w.run(["inspect", "--json", "--password-file", "pw", "new.vault"]).json()
        #expect(inspect["items"] as? Int == 3)
        let list = try w.run(["list", "--password-file", "pw", "new.vault"])
        #expect(list.status == 0)
    }

    @Test func migrateFromCreate_existingVaultIsOpenedNotReplaced() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("kept", ["--service", "mine", "--account", "me"])
        let result = try w.run([
            "migrate", "--create", "--password-file", "pw", "--from", "csv", Tool.data("generic.csv"), "v.vault",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("Created "))
        let get = try w.run(["get", "--password-file", "pw", "--service", "mine", "--account", "me", "v.vault"])
        #expect(get.stdout == "kept")
    }

    @Test func importCreateDryRun_createsNothing() throws {
        let w = try Workspace()
        let result = try w.run([
            "import", "--create", "--dry-run", "--json", "--password-file", "pw", "--from", "csv",
            Tool.data("generic.csv"), "new.vault",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try result.json()
        #expect(summary["created"] as? Bool == true)
        #expect(summary["imported"] as? Int == 3)
        #expect(!FileManager.default.fileExists(atPath: w.file("new.vault")))
        #expect(!FileManager.default.fileExists(atPath: w.file("new.vault.lock")))
    }

    @Test func kdfOptionsWithoutCreate_areAUsageError() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run(
            ["import", "--password-file", "pw", "--from", "csv"] + Workspace.fastKDF + [
                Tool.data("generic.csv"), "v.vault",
            ]
        )
        #expect(result.status == 64)
    }

    @Test func keepassEntries_sameTitleAndUser_inDifferentGroups_allKept() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("kp.csv", Self.sameTitleInTwoGroups)
        let result = try w.run(["import", "--password-file", "pw", "--from", "keepassxc-csv", "kp.csv", "v.vault"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 3 items"))
        #expect(try secrets(w) == ["Work": "work-secret", "Personal": "home-secret", "": "root-secret"])
        let work = try w.run([
            "get", "--password-file", "pw", "--service", "db", "--account", "app", "--access-group", "Work", "v.vault",
        ])
        #expect(work.stdout == "work-secret")
    }

    @Test func duplicates_writeNothing_andExit1_unlessSkipDuplicates() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write(
            "kp.csv",
            Self.header + "\"Root/Work\",\"db\",\"app\",\"one\",\"\",\"\"\n"
                + "\"Root/Work\",\"db\",\"app\",\"two\",\"\",\"\"\n"
                + "\"Root/Work\",\"cache\",\"app\",\"three\",\"\",\"\"\n"
        )
        let refused = try w.run(["import", "--password-file", "pw", "--from", "keepassxc-csv", "kp.csv", "v.vault"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("db (Work): same primary key as db (Work)"))
        #expect(refused.stderr.contains("nothing was imported"))
        #expect(refused.stderr.contains("--skip-duplicates"))
        #expect(try w.run(["inspect", "--json", "--password-file", "pw", "v.vault"]).json()["items"] as? Int == 0)

        let skipped = try w.run([
            "import", "--skip-duplicates", "--password-file", "pw", "--from", "keepassxc-csv", "kp.csv", "v.vault",
        ])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(try w.run(["inspect", "--json", "--password-file", "pw", "v.vault"]).json()["items"] as? Int == 2)

        let again = try w.run(["import", "--password-file", "pw", "--from", "keepassxc-csv", "kp.csv", "v.vault"])
        #expect(again.status == 1)
        #expect(again.stdout.contains("already in the vault"))
    }
}
