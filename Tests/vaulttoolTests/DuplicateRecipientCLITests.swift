// vaulttool tests: a recipient that appended a second stanza for its own key is still removed
// (R12-RCP-7), driving the built binary.

import Foundation
import Testing

@_spi(Testing) @testable import VaultFormat

@Suite("Recipients CLI: one key, two stanzas")
struct DuplicateRecipientCLITests {
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
        let path = w.file("v.vault")
        let identity = try RecipientIdentity(
            fileContents: [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.file("alice.id"))))
        )
        let snapshot = try VaultSnapshot.open(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))),
            with: .identity(identity)
        )
        var writer = try VaultWriter(updating: snapshot)
        writer.header.recipientStanzas.append(
            try KeyHierarchy.makeRecipientStanza(
                for: Recipient(key: identity.recipient, name: "alice"),
                master: try #require(snapshot.keys.master),
                vaultID: snapshot.header.vaultID
            )
        )
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: path))

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
}
