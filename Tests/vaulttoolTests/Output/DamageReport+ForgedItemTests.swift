// vaulttool tests: an item forged by a recipient limited to one access group, claiming another
// group (Spec/threat-model.md §3.13.1), is a damaged item for the owner (R2-GRP-5), driving the
// built binary.

import Foundation
import Testing

@testable import VaultFormat

@Suite("Access-group forgery CLI")
struct AccessGroupForgeryCLITests {
    /// The `deploy` runner's forgery of `v.vault`, with its identity file and the file in hand: a
    /// record under the `bank` item's ID, sealed in deploy's key domain, that claims `billing`
    /// (the library-level steps are those of `AccessGroupForgeryTests.forge`).
    private func forge(_ w: Workspace) throws -> String {
        let path = w.file("v.vault")
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let identity = try RecipientIdentity(
            fileContents: [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file("ci.id"))))
        )
        let runner = try VaultSnapshot.open(file, with: .identity(identity))
        var attributes = ItemAttributes(service: "bank", account: "ci")
        attributes.accessGroup = "billing"
        let tag = runner.keys.lookupTag(PrimaryKey(itemClass: .genericPassword, attributes: attributes))
        let target = try runner.index.entry(at: try #require(runner.index.positions(ofTag: tag).first))
        let forged = try RecordCodec.seal(
            ItemDraft(id: target.itemID, attributes: attributes, secret: SecretBytes(utf8: "forged")),
            version: runner.header.generation + 1,
            vaultID: runner.header.vaultID,
            keys: runner.keys,
            domain: try #require(runner.keys.limitedDomain),
            random: SystemRandom()
        )
        // A writer is refused to a limited recipient; the owner's is handed the runner's keys
        // before anything is written, so the new generation is made with the runner's HK and IK.
        var writer = try VaultWriter(updating: try VaultSnapshot.open(file, with: .password(Workspace.password)))
        writer.keys = runner.keys
        try writer.insertRaw(forged)
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: path))
        return target.itemID.description
    }

    @Test func forgedItem_isNamedAsDamaged_andCanBeRemoved() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        for (service, group) in [("db", "deploy"), ("bank", "billing")] {
            let set = try w.set(
                "\(service)-secret",
                ["--service", service, "--account", "ci", "--access-group", group]
            )
            #expect(set.status == 0, "\(set.stderr)")
        }
        let runner = try w.run(["keygen", "ci.id"]).stdout.trimmingCharacters(in: .newlines)
        let migrate = try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", runner, "--name", "ci-deploy",
            "--access-group", "deploy", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let id = try forge(w)

        // Spec/cli.md 4.3: a damaged record stops the command with exit 4 and names the item.
        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 4)
        #expect(list.stderr.hasPrefix("Error: The vault is damaged or was tampered with: item \(id)"))
        #expect(list.stderr.contains("claims another access group"))
        let get = try w.run(["get", "--password-file", "pw", "--service", "bank", "--account", "ci", "v.vault"])
        #expect(get.status == 4 && !get.stdout.contains("forged"))
        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 4)
        #expect(verify.stdout.hasPrefix("damaged: item \(id)"))
        // The deploy item is not affected: a lookup by its whole primary key does not meet the
        // damaged record (one without the access group scans every item and does, exit 4).
        let db = try w.run([
            "get", "--password-file", "pw", "--service", "db", "--account", "ci", "--access-group", "deploy",
            "v.vault",
        ])
        #expect(db.status == 0 && db.stdout.hasPrefix("db-secret"), "\(db.stderr)")
        let scan = try w.run(["get", "--password-file", "pw", "--service", "db", "--account", "ci", "v.vault"])
        #expect(scan.status == 4 && scan.stderr.contains("item \(id)"), "\(scan.stderr)")

        // Removing the runner rekeys (R2-RCP-5), which refuses to seal the forgery again; the
        // damaged item is removed by ID first.
        let refused = try w.run(["recipients", "rm", "--password-file", "pw", "--name", "ci-deploy", "v.vault"])
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(try w.run(["rm", "--id", id, "--password-file", "pw", "v.vault"]).status == 0)
        let rm = try w.run(["recipients", "rm", "--password-file", "pw", "--name", "ci-deploy", "v.vault"])
        #expect(rm.status == 0, "\(rm.stderr)")
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 0)
    }

    /// A 2.0 `v.vault` holding one `always` item of `deploy` (`registry/ci`, `secret`), whose
    /// group has its key domain: `ci.id` is a recipient limited to it.
    private func deployVault(secret: String) throws -> Workspace {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        let set = try w.set(
            secret,
            ["--service", "registry", "--account", "ci", "--access-group", "deploy", "--accessibility", "always"]
        )
        #expect(set.status == 0, "\(set.stderr)")
        let runner = try w.run(["keygen", "ci.id"]).stdout.trimmingCharacters(in: .newlines)
        #expect(
            try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"]).status == 0
        )
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", runner, "--name", "ci-deploy",
            "--access-group", "deploy", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        return w
    }

    /// R2-GRP-2, the security review's base-key forgery: with `BK` alone (what a base-scope
    /// keyslot yields) the `deploy` field's sealed name is damaged and the `deploy` item is
    /// replaced by a domain-0 `always` record naming `deploy`. Before, `verify` said "ok" and
    /// `get --access-group deploy` printed the forged secret; now every owner's command exits 4.
    @Test func baseKeyForgery_ofTheGroupField_isDamageForEveryCommand() throws {
        let w = try deployVault(secret: "deploy-secret")

        let path = w.file("v.vault")
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let owner = try VaultSnapshot.open(file, with: .password(Workspace.password))
        let keys = VaultKeys(
            master: nil,
            base: KeyHierarchy.baseKey(from: try #require(owner.keys.master)),
            deviceSecret: nil,
            vaultID: owner.header.vaultID
        )
        var writer = try VaultWriter(updating: owner)
        writer.keys = keys
        writer.header.accessGroups[0].sealedName[0] ^= 0x01
        var attributes = ItemAttributes(service: "registry", account: "ci")
        attributes.accessGroup = "deploy"
        try writer.insertRaw(
            try RecordCodec.seal(
                ItemDraft(
                    id: owner.index.entry(at: 0).itemID,
                    protectionClass: .always,
                    attributes: attributes,
                    secret: SecretBytes(utf8: "forged")
                ),
                version: writer.header.generation,
                vaultID: owner.header.vaultID,
                keys: keys,
                random: SystemRandom()
            )
        )
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: path))

        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 4, "\(verify.stdout) \(verify.stderr)")
        #expect(verify.stderr.contains("access group"), "\(verify.stderr)")
        let get = try w.run([
            "get", "--password-file", "pw", "--service", "registry", "--account", "ci", "--access-group", "deploy",
            "v.vault",
        ])
        #expect(get.status == 4 && !get.stdout.contains("forged"), "\(get.stdout) \(get.stderr)")
        #expect(try w.run(["list", "--password-file", "pw", "v.vault"]).status == 4)
        let recipients = try w.run(["recipients", "ls", "--password-file", "pw", "v.vault"])
        #expect(recipients.status == 4, "\(recipients.stderr)")
        // Without a credential the header still describes itself.
        #expect(try w.run(["inspect", "v.vault"]).status == 0)
    }

    /// R-GD-3: `git-diff` keys a grouped item's fingerprint with its own domain's key. Before, it
    /// printed the domain-0 fingerprint, which a holder of `BK` alone can compute for a guess.
    @Test func gitDiff_fingerprintOfAGroupedAlwaysItem_usesItsDomainKey() throws {
        let w = try deployVault(secret: "hunter2")
        let diff = try w.run(["git-diff", "--password-file", "pw", "v.vault"])
        let line = try #require(diff.stdout.split(separator: "\n").first { $0.contains("secret: fingerprint ") })
        let shown = String(line.split(separator: " ").last!)
        let owner = try VaultSnapshot.open(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))),
            with: .password(Workspace.password)
        )
        let entry = try owner.index.entry(at: 0)
        #expect(entry.domain == 1)
        let fingerprinter = SecretFingerprinter(keys: owner.keys, vaultID: owner.header.vaultID)
        let secret = SecretBytes(utf8: "hunter2")
        let own = try fingerprinter.fingerprint(of: secret, itemID: entry.itemID, protection: .always, domain: 1)
        let baseKeyed = try fingerprinter.fingerprint(of: secret, itemID: entry.itemID, protection: .always)
        #expect(shown == Hex.encode(own) && shown != Hex.encode(baseKeyed), "\(diff.stdout)")
    }
}
