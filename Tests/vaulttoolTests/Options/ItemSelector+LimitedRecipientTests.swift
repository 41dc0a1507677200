// vaulttool tests: a recipient limited to one access group plants items in its own group that
// would answer lookups naming no group (issue 20, finding 3), driving the built binary.

import Foundation
import Testing

@testable import VaultFormat

@Suite("Limited recipient: items planted in its own group")
struct LimitedRecipientSubstitutionTests {
    /// A 2.0 vault with billing's `bank/ci`, the owner's github.com password (default group), a
    /// `deploy` item, and `ci.id`, a recipient limited to `deploy`.
    func team() throws -> Workspace {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        try w.set("bank-secret", ["--service", "bank", "--account", "ci", "--access-group", "billing"])
        try w.set("owner-token", ["--server", "github.com", "--protocol", "https", "--account", "owner"])
        try w.set("db-secret", ["--service", "db", "--account", "ci", "--access-group", "deploy"])
        let runner = try w.run(["keygen", "ci.id"]).stdout.trimmingCharacters(in: .newlines)
        #expect(
            try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"]).status == 0
        )
        for (key, name, group) in [(runner, "ci-deploy", "deploy")] {
            let add = try w.run([
                "recipients", "add", "--password-file", "pw", "--recipient", key, "--name", name, "--access-group",
                group, "v.vault",
            ])
            #expect(add.status == 0, "\(add.stderr)")
        }
        // billing gets its own keys too (an accountant), so both groups are keyed.
        let accountant = try w.run(["keygen", "acc.id"]).stdout.trimmingCharacters(in: .newlines)
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", accountant, "--name", "acc",
            "--access-group", "billing", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        return w
    }

    /// What the runner writes with its identity and the file: optionally deletes an item it found by
    /// its guessed primary key, and seals `planted` in its own domain (a valid deploy item).
    func plant(
        _ w: Workspace,
        deleting deleted: PrimaryKey?,
        _ planted: ItemAttributes,
        itemClass: ItemClass = .genericPassword,
        secret: String
    ) throws {
        let path = w.file("v.vault")
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let identity = try RecipientIdentity(
            fileContents: [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file("ci.id"))))
        )
        let runner = try VaultSnapshot.open(file, with: .identity(identity))
        var writer = try VaultWriter(updating: try VaultSnapshot.open(file, with: .password(Workspace.password)))
        writer.keys = runner.keys
        if let deleted {
            let position = try #require(runner.index.positions(ofTag: runner.keys.lookupTag(deleted)).first)
            let removed = try writer.remove(try runner.index.entry(at: position).itemID, now: 0)
            #expect(removed)
        }
        try writer.insertRaw(
            try RecordCodec.seal(
                ItemDraft(
                    id: ItemID(random: SystemRandom()),
                    itemClass: itemClass,
                    attributes: planted,
                    secret: SecretBytes(utf8: secret)
                ),
                version: writer.header.generation,
                vaultID: runner.header.vaultID,
                keys: runner.keys,
                domain: try #require(runner.keys.limitedDomain),
                random: SystemRandom()
            )
        )
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: path))
    }

    /// Before, `get --service bank --account ci` printed the runner's value, and `verify` said ok.
    @Test func plantedItem_doesNotAnswerALookupThatNamesNoGroup() throws {
        let w = try team()
        var billing = ItemAttributes(service: "bank", account: "ci")
        billing.accessGroup = "billing"
        var planted = billing
        planted.accessGroup = "deploy"
        try plant(
            w,
            deleting: PrimaryKey(itemClass: .genericPassword, attributes: billing),
            planted,
            secret: "attacker"
        )
        let get = try w.run(["get", "--password-file", "pw", "--service", "bank", "--account", "ci", "v.vault"])
        #expect(get.status == 2 && !get.stdout.contains("attacker"), "\(get.stdout)")
        #expect(get.stderr.contains("an item of access group 'deploy' matches"), "\(get.stderr)")
        let named = try w.run([
            "get", "--password-file", "pw", "--service", "bank", "--account", "ci", "--access-group", "billing",
            "v.vault",
        ])
        #expect(named.status == 2)
    }

    /// Before, `git credential fill` returned `password=attacker-token` although the owner's
    /// github.com item was still there: the helper matched every group but docker.
    @Test func plantedInternetPassword_isNotWhatTheGitHelperReturns() throws {
        let w = try team()
        var planted = ItemAttributes(account: "owner")
        planted.server = "github.com"
        planted.protocol = "https"
        planted.accessGroup = "deploy"
        planted.modificationDate = Int64.max / 2
        try plant(w, deleting: nil, planted, itemClass: .internetPassword, secret: "attacker-token")
        let fill = try w.run(
            ["credential-helper", "git", "--vault", "v.vault", "--password-file", "pw", "get"],
            stdin: "protocol=https\nhost=github.com\n\n"
        )
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout.contains("password=owner-token") && !fill.stdout.contains("attacker"), "\(fill.stdout)")
    }
}
