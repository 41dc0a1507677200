// vaulttool tests: recipients limited to one access group (format 2.0), driving the binary.

import Foundation
import Testing

@Suite("Access-group recipients CLI")
struct AccessGroupRecipientTests {
    /// `v.vault` with two `deploy` items, two `billing` items and one without a group.
    func vault() throws -> (w: Workspace, runner: String) {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        for (service, group) in [("db", "deploy"), ("ssh", "deploy"), ("bank", "billing"), ("card", "billing")] {
            let set = try w.set(
                "\(service)-secret",
                ["--service", service, "--account", "ci", "--access-group", group]
            )
            #expect(set.status == 0, "\(set.stderr)")
        }
        #expect(try w.set("plain-secret", ["--service", "plain", "--account", "ci"]).status == 0)
        let runner = try w.run(["keygen", "ci.id"]).stdout.trimmingCharacters(in: .newlines)
        return (w, runner)
    }

    /// R2-VER-2: on a 1.x vault, add --access-group is refused (exit 5) and names the migration.
    @Test func add_onVersion1_namesMigrateTo2() throws {
        let (w, runner) = try vault()
        let refused = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", runner, "--name", "ci",
            "--access-group", "deploy", "v.vault",
        ])
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("vaulttool migrate --to 3 v.vault"))
    }

    /// The test through the tool: the `deploy` runner reads every `deploy` item and gets
    /// an error on every `billing` item and on the ungrouped one; ls shows the limit.
    @Test func limitedRunner_readsDeployOnly() throws {
        let (w, runner) = try vault()
        let migrate = try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("vault 1.1 -> 2.0"))
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", runner, "--name", "ci-deploy",
            "--access-group", "deploy", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let ls = try w.run(["recipients", "ls", "--password-file", "pw", "v.vault"])
        #expect(ls.stdout == "\(runner)  ci-deploy  (access group deploy only)\n")
        for service in ["db", "ssh"] {
            let get = try w.run(["get", "--identity", "ci.id", "--service", service, "--account", "ci", "v.vault"])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(get.stdout.hasPrefix("\(service)-secret"))
        }
        for service in ["bank", "card", "plain"] {
            let get = try w.run(["get", "--identity", "ci.id", "--service", service, "--account", "ci", "v.vault"])
            // The runner cannot decrypt the item's attributes, so no item matches (exit 2); the
            // library reports the item itself as keyUnavailable (Spec/format-v2.md, R2-RCP-3).
            #expect(get.status == 2, "\(get.stderr)")
            #expect(get.stderr.contains("3 other items cannot be read with it (another access group"))
            #expect(!get.stdout.contains("secret") && !get.stderr.contains("\(service)-secret"))
        }
        let list = try w.run(["list", "--identity", "ci.id", "v.vault"])
        #expect(list.stdout.contains("deploy") && !list.stdout.contains("billing") && !list.stdout.contains("plain"))
        #expect(list.stderr.contains("3 items cannot be opened"))
        // The owner still reads everything.
        let owner = try w.run(["get", "--password-file", "pw", "--service", "bank", "--account", "ci", "v.vault"])
        #expect(owner.status == 0 && owner.stdout.hasPrefix("bank-secret"))
        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 0, "\(verify.stderr)")
        // R2-RCP-5: rm rekeys; the runner's identity then opens nothing, and the owner still reads
        // every item, the deploy ones sealed again in their key domain under the new keys.
        let rm = try w.run(["recipients", "rm", "--password-file", "pw", "--name", "ci-deploy", "v.vault"])
        #expect(rm.status == 0, "\(rm.stderr)")
        let after = try w.run(["get", "--identity", "ci.id", "--service", "db", "--account", "ci", "v.vault"])
        #expect(after.status == 3, "\(after.stderr)")
        // A lookup of a keyed group's item names the group (Spec/cli.md 4.4): without it, exit 2.
        let unnamed = try w.run(["get", "--password-file", "pw", "--service", "db", "--account", "ci", "v.vault"])
        #expect(unnamed.status == 2 && unnamed.stderr.contains("add --access-group 'deploy'"), "\(unnamed.stderr)")
        let db = try w.run([
            "get", "--password-file", "pw", "--service", "db", "--account", "ci", "--access-group", "deploy", "v.vault",
        ])
        #expect(db.status == 0 && db.stdout.hasPrefix("db-secret"))
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }

    /// inspect, without a credential, counts the limited recipients and the access groups with
    /// a key domain (both readable from the header), and says neither before the first is added.
    @Test func inspect_countsLimitedRecipientsAndGroups() throws {
        let (w, runner) = try vault()
        let migrate = try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let before = try w.run(["inspect", "--json", "v.vault"]).json()
        #expect(before["limitedRecipients"] as? Int == 0 && before["accessGroups"] as? Int == 0)
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", runner, "--name", "ci-deploy",
            "--access-group", "deploy", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let json = try w.run(["inspect", "--json", "v.vault"]).json()
        #expect(json["recipients"] as? Int == 1)
        #expect(json["limitedRecipients"] as? Int == 1)
        #expect(json["accessGroups"] as? Int == 1)
        let text = try w.run(["inspect", "v.vault"]).stdout
        #expect(text.contains("Recipients:  1 (keys and names encrypted, 1 limited to one access group)\n"))
        #expect(text.contains("Groups:      1 access group with a key domain (names encrypted)\n"))
        #expect(!text.contains("deploy"))
        // A 1.x vault has neither line.
        let plain = try Workspace()
        try plain.makeVault(format: "1.1")
        let old = try plain.run(["inspect", "--json", "v.vault"]).json()
        #expect(old["limitedRecipients"] == nil && old["accessGroups"] == nil)
    }
}
