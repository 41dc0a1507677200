// vaulttool tests: recipient identities (`--identity`): what opening with one says, a vault forged from
// a public key alone, and `recipients rm --unreadable` on a healthy vault.
// Found by the security review of recipients (format 1.2) and git-diff.

import Foundation
import Testing

@Suite("Recipients: identities")
struct RecipientIdentityTests {
    /// A 1.2 vault with one item whose only recipient is `alice.id`; `eve.id` is no recipient.
    func vaultForAlice() throws -> Workspace {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let migrate = try w.run(["migrate", "--to", "1.2", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let alice = try w.run(["keygen", "alice.id"]).stdout.trimmingCharacters(in: .newlines)
        #expect(try w.run(["keygen", "eve.id"]).status == 0)
        let added = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", alice, "--name", "alice", "v.vault",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        return w
    }

    func identityLine(_ w: Workspace, _ name: String) throws -> String {
        let contents = try String(contentsOfFile: w.file(name), encoding: .utf8)
        return String(try #require(contents.split(separator: "\n").first { $0.hasPrefix("VAULT-IDENTITY-1:") }))
    }

    /// R12-RCP-3: an identity that matches no stanza says so (exit 3), not "wrong password or key
    /// file", and quotes neither the identity nor any recipient.
    @Test func identityOfNoRecipient_saysSo() throws {
        let w = try vaultForAlice()
        let eve = try w.run(["get", "--identity", "eve.id", "--service", "db", "--account", "app", "v.vault"])
        #expect(eve.status == 3)
        #expect(eve.stderr == "Error: The identity is not a recipient of this vault\n", "\(eve.stderr)")
        #expect(!eve.stderr.contains(try identityLine(w, "eve.id")))
        #expect(!eve.stderr.contains("VAULT-RECIPIENT-1:"))
        #expect(eve.stdout.isEmpty)
    }

    /// The same with a wrong password too: both are named.
    @Test func identityAndWrongPassword_nameBoth() throws {
        let w = try vaultForAlice()
        try w.write("bad", "not the password\n")
        let both = try w.run([
            "get", "--identity", "eve.id", "--password-file", "bad", "--service", "db", "--account", "app", "v.vault",
        ])
        #expect(both.status == 3)
        #expect(
            both.stderr
                == "Error: The identity is not a recipient of this vault, and the password or key file opens no keyslot\n",
            "\(both.stderr)"
        )
        #expect(!both.stderr.contains("not the password"))
    }

    /// An identity offered to a 1.1 vault: it can have no recipients, and the message says why.
    @Test func identityOnVersion11_namesTheFormat() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        #expect(try w.run(["keygen", "me.id"]).status == 0)
        let open = try w.run(["list", "--identity", "me.id", "v.vault"])
        #expect(open.status == 3)
        #expect(open.stderr.contains("not a recipient of this vault (it is format 1.1, which has no recipients)"))
    }

    /// Without an identity nothing changes: a wrong password is still "wrong password or key file".
    @Test func wrongPasswordAlone_unchanged() throws {
        let w = try vaultForAlice()
        try w.write("bad", "not the password\n")
        let wrong = try w.run(["list", "--password-file", "bad", "v.vault"])
        #expect(wrong.status == 3)
        #expect(wrong.stderr == "Error: Wrong password or key file\n")
    }

    /// Spec/threat-model.md 3.12: the public recipient key alone makes a vault the identity opens
    /// (here a whole new one, by someone who never held the team's keys); git-diff says how
    /// little the header check proves then.
    @Test func forgedVault_fromThePublicKeyAlone_opensWithTheIdentity() throws {
        let w = try Workspace()
        let victimKey = try w.run(["keygen", "victim.id"]).stdout.trimmingCharacters(in: .newlines)
        // The forger's own vault, password and item; only the victim's public key is used.
        try w.write("forger-pw", "the forger's own password\n")
        let create = try w.run(
            ["create", "--format", "1.1", "--password-file", "forger-pw"] + Workspace.fastKDF + ["f.vault"]
        )
        #expect(create.status == 0, "\(create.stderr)")
        #expect(try w.run(["migrate", "--to", "1.2", "--password-file", "forger-pw", "f.vault"]).status == 0)
        let add = try w.run([
            "recipients", "add", "--password-file", "forger-pw", "--recipient", victimKey, "--name", "x", "f.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let set = try w.run(
            ["set", "--password-file", "forger-pw", "--service", "db", "--account", "app", "f.vault"],
            stdin: "attacker-chosen"
        )
        #expect(set.status == 0, "\(set.stderr)")
        let get = try w.run(["get", "--identity", "victim.id", "--service", "db", "--account", "app", "f.vault"])
        #expect(get.status == 0 && get.stdout == "attacker-chosen", "opens without any warning")
        let view = try w.run(["git-diff", "--identity", "victim.id", "f.vault"])
        #expect(view.stdout.contains("header: authenticated by a recipient identity"), "\(view.stdout)")
    }

    /// `recipients rm --unreadable`: only for 'rm', alone; on a healthy vault it changes nothing.
    /// (A vault with such a stanza is made in VaultIOTests, UnreadableRecipientTests.)
    @Test func rmUnreadable_onAHealthyVault_changesNothing() throws {
        let w = try vaultForAlice()
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let rm = try w.run(["recipients", "rm", "--unreadable", "--password-file", "pw", "v.vault"])
        #expect(rm.status == 0, "\(rm.stderr)")
        #expect(rm.stdout == "No unreadable recipient in v.vault; nothing changed.\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault"))) == before)
        #expect(try w.run(["recipients", "ls", "--unreadable", "--password-file", "pw", "v.vault"]).status == 64)
        let both = try w.run([
            "recipients", "rm", "--unreadable", "--name", "alice", "--password-file", "pw", "v.vault",
        ])
        #expect(both.status == 64)
    }
}
