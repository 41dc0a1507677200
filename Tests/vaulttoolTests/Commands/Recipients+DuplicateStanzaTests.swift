// vaulttool tests: a recipient that appended a second stanza for its own key is still removed
// (R12-RCP-7), driving the built binary.

import Foundation
import Testing

@testable import VaultFormat

@Suite("Recipients CLI: one key, two stanzas")
struct DuplicateRecipientCLITests {
    /// What alice, a full recipient, writes with only her identity (`alice.id`) and the file: the
    /// stanzas `edit` leaves, under a header MAC made with the master key her stanza yields.
    private func asAlice(
        _ w: Workspace,
        _ edit: (RecipientIdentity, MasterKey, [UInt8], inout [RecipientStanza]) throws -> Void
    ) throws {
        let path = w.file("v.vault")
        let identity = try RecipientIdentity(
            fileContents: [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file("alice.id"))))
        )
        let snapshot = try VaultSnapshot.open(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))),
            with: .identity(identity)
        )
        var writer = try VaultWriter(updating: snapshot)
        try edit(identity, try #require(snapshot.keys.master), snapshot.header.vaultID, &writer.header.recipientStanzas)
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: path))
    }

    /// The security review's attack: with only her identity, alice appends a second stanza for
    /// her own key and name. Before, `rm --name alice` and `rm --recipient <key>` failed ("2
    /// recipients are named so"), a rekey rewrapped both, and alice read everything afterwards.
    @Test(arguments: ["--name", "--recipient"])
    func recipientWithTwoStanzas_isListedOnce_andRemovedWhole(by option: String) throws {
        let (w, alice, bob) = try RecipientCommandTests().team()
        for (key, name) in [(alice, "alice"), (bob, "bob")] {
            let add = try w.run([
                "recipients", "add", "--password-file", "pw", "--recipient", key, "--name", name, "v.vault",
            ])
            #expect(add.status == 0, "\(add.stderr)")
        }
        try asAlice(w) { identity, master, vaultID, stanzas in
            stanzas.append(
                try KeyHierarchy.makeRecipientStanza(
                    for: Recipient(key: identity.recipient, name: "alice"),
                    master: master,
                    vaultID: vaultID
                )
            )
        }

        let ls = try w.run(["recipients", "ls", "--password-file", "pw", "v.vault"])
        #expect(ls.status == 0, "\(ls.stderr)")
        #expect(ls.stdout.components(separatedBy: alice).count == 2, "\(ls.stdout)")
        #expect(ls.stderr.contains("warning: recipient \(alice) has 2 stanzas"))
        let rm = try w.run([
            "recipients", "rm", "--password-file", "pw", option, option == "--name" ? "alice" : alice, "v.vault",
        ])
        #expect(rm.status == 0, "\(rm.stderr)")
        try w.set("after removal", ["--service", "new", "--account", "app"])
        let get = try w.run(["get", "--identity", "alice.id", "--service", "new", "--account", "app", "v.vault"])
        #expect(get.status == 3 && !get.stdout.contains("after removal"), "\(get.stdout) \(get.stderr)")
        let asBob = try w.run(["get", "--identity", "bob.id", "--service", "new", "--account", "app", "v.vault"])
        #expect(asBob.status == 0 && asBob.stdout.hasPrefix("after removal"), "\(asBob.stderr)")
    }

    /// The review's follow-up: alice puts a stanza limited to `deploy` for her own key before her
    /// full one. Before, `ls` showed her as "deploy only", and every rekey (so every removal of
    /// someone else) failed on "stanzas with different access". Now `ls` shows the full access she
    /// has, and a rekey keeps her full stanza, once.
    @Test func fullRecipientHidingBehindALimitedStanza_isShownFull_andBlocksNoRekey() throws {
        let (w, alice, bob) = try RecipientCommandTests().team()
        #expect(
            try w.run(["migrate", "--to", "2.0", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"]).status == 0
        )
        let runner = try w.run(["keygen", "runner.id"]).stdout.trimmingCharacters(in: .newlines)
        for (key, name, group) in [(alice, "alice", nil), (bob, "bob", nil), (runner, "runner", "deploy")] {
            let add = try w.run(
                ["recipients", "add", "--password-file", "pw", "--recipient", key, "--name", name]
                    + (group.map { ["--access-group", $0] } ?? []) + ["v.vault"]
            )
            #expect(add.status == 0, "\(add.stderr)")
        }
        try asAlice(w) { identity, master, vaultID, stanzas in
            stanzas.insert(
                try KeyHierarchy.makeLimitedRecipientStanza(
                    for: Recipient(key: identity.recipient, name: "alice"),
                    domain: 1,
                    accessGroup: "deploy",
                    master: master,
                    vaultID: vaultID
                ),
                at: 0
            )
        }

        let ls = try w.run(["recipients", "ls", "--password-file", "pw", "v.vault"])
        let line = try #require(ls.stdout.split(separator: "\n").first { $0.contains(alice) })
        #expect(!line.contains("access group"), "\(ls.stdout)")
        #expect(ls.stderr.contains("has 2 stanzas"))
        let rm = try w.run(["recipients", "rm", "--password-file", "pw", "--name", "bob", "v.vault"])
        #expect(rm.status == 0, "\(rm.stderr)")
        let after = try w.run(["recipients", "ls", "--password-file", "pw", "v.vault"])
        #expect(after.stderr.isEmpty && after.stdout.components(separatedBy: alice).count == 2, "\(after.stdout)")
    }
}
