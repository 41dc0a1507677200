// vaulttool tests: keygen, recipients ls|add|rm, --identity and migrate --to 1.2, driving the binary.

import Foundation
import Testing

@Suite("Recipients CLI")
struct RecipientCommandTests {
    /// A workspace with `v.vault` (one item) raised to format 1.2, and identities `alice.id`, `bob.id`.
    func team() throws -> (w: Workspace, alice: String, bob: String) {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        try w.set("s3cret", ["--service", "db", "--account", "app"])
        let migrate = try w.run(["migrate", "--to", "1.2", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("vault 1.1 -> 1.2"))
        var keys = [String]()
        for name in ["alice", "bob"] {
            let made = try w.run(["keygen", "\(name).id"])
            #expect(made.status == 0, "\(made.stderr)")
            keys.append(made.stdout.trimmingCharacters(in: .newlines))
        }
        return (w, keys[0], keys[1])
    }

    /// migrate and passwd open through a credential session; an identity opens it as it opens
    /// every other command (it used to be ignored there: "wrong password or key file"), and a
    /// password slot the identity does not open is reported as skipped, not as opened by it.
    @Test func migrateAndPasswd_openWithAnIdentity() throws {
        let (w, alice, _) = try team()
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", alice, "--name", "alice", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let migrate = try w.run(["migrate", "--identity", "alice.id", "--dry-run", "--kdf-memory", "65536", "v.vault"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("Skipped:  keyslot #0 password: its credential was not given"))
        let passwd = try w.run(["passwd", "--identity", "alice.id", "--generate-key-file", "kf", "v.vault"])
        #expect(passwd.status == 0, "\(passwd.stderr)")
        let get = try w.run(["get", "--key-file", "kf", "--service", "db", "--account", "app", "v.vault"])
        #expect(get.status == 0 && get.stdout.hasPrefix("s3cret"), "\(get.stderr)")
    }

    /// keygen: a private, never-overwritten identity file; the public key on stdout only.
    @Test func keygen_writesPrivateIdentity_printsItsKey() throws {
        let w = try Workspace()
        let made = try w.run(["keygen", "me.id"])
        #expect(made.status == 0)
        #expect(made.stdout.hasPrefix("VAULT-RECIPIENT-1:") && made.stdout.count == 18 + 48 + 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: w.file("me.id"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let contents = try String(contentsOfFile: w.file("me.id"), encoding: .utf8)
        let secretLine = try #require(contents.split(separator: "\n").first { $0.hasPrefix("VAULT-IDENTITY-1:") })
        #expect(!made.stdout.contains(secretLine) && !made.stderr.contains(secretLine), "the secret is never printed")
        let again = try w.run(["keygen", "me.id"])
        #expect(again.status == 1)
        #expect(try String(contentsOfFile: w.file("me.id"), encoding: .utf8) == contents, "never overwritten")
        let shown = try w.run(["keygen", "--recipient-of", "me.id"])
        #expect(shown.stdout == made.stdout)
    }

    /// R12-VER-1: add on a 1.1 vault is refused with exit 5 and names the migration command.
    @Test func add_onVersion11_namesMigrate() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        let key = try w.run(["keygen", "a.id"]).stdout.trimmingCharacters(in: .newlines)
        let refused = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", key, "--name", "a", "v.vault",
        ])
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("vaulttool migrate --to 1.2 v.vault"))
        let inspect = try w.run(["inspect", "v.vault"])
        #expect(inspect.stdout.contains("vault 1.1"))
    }

    /// The team workflow: add, ls, open with --identity, rm (with a rekey) locks the removed one out.
    @Test func addListOpenRemove() throws {
        let (w, alice, bob) = try team()
        for (key, name) in [(alice, "alice@laptop"), (bob, "ci-deploy")] {
            let added = try w.run([
                "recipients", "add", "--password-file", "pw", "--recipient", key, "--name", name, "v.vault",
            ])
            #expect(added.status == 0, "\(added.stderr)")
        }
        let inspect = try w.run(["inspect", "--identity", "alice.id", "v.vault"])
        #expect(inspect.stdout.contains("Recipients:  2 (keys and names encrypted)\n"))
        #expect(inspect.stdout.contains("checked with the credential"), "\(inspect.stdout)")
        #expect(!inspect.stdout.contains("alice@laptop") && !inspect.stdout.contains(alice))
        let list = try w.run(["recipients", "ls", "--identity", "bob.id", "v.vault"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == "\(alice)  alice@laptop\n\(bob)  ci-deploy\n")
        let json = try w.run(["recipients", "ls", "--json", "--password-file", "pw", "v.vault"]).json()
        #expect((json["recipients"] as? [[String: String]])?.map { $0["name"] } == ["alice@laptop", "ci-deploy"])

        let get = try w.run(["get", "--identity", "alice.id", "--service", "db", "--account", "app", "v.vault"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "s3cret")
        let env = try w.run(
            ["get", "--service", "db", "--account", "app", "v.vault"],
            environment: ["VAULTTOOL_IDENTITY_FILE": w.file("bob.id")]
        )
        #expect(env.stdout == "s3cret", "\(env.stderr)")

        // rm by an identity alone cannot rewrap the password keyslot: refused, nothing changed.
        let refused = try w.run(["recipients", "rm", "--identity", "bob.id", "--name", "alice@laptop", "v.vault"])
        #expect(refused.status == 1, "\(refused.stderr)")
        let removed = try w.run(["recipients", "rm", "--password-file", "pw", "--name", "alice@laptop", "v.vault"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("replaced the master key"))
        let locked = try w.run(["get", "--identity", "alice.id", "--service", "db", "--account", "app", "v.vault"])
        #expect(locked.status == 3)
        let kept = try w.run(["get", "--identity", "bob.id", "--service", "db", "--account", "app", "v.vault"])
        #expect(kept.stdout == "s3cret", "\(kept.stderr)")
        let after = try w.run(["recipients", "ls", "--password-file", "pw", "v.vault"])
        #expect(after.stdout == "\(bob)  ci-deploy\n")
        let missing = try w.run(["recipients", "rm", "--password-file", "pw", "--recipient", alice, "v.vault"])
        #expect(missing.status == 2)
    }

    /// R12-RCP-6: a plain `vaulttool rekey` keeps every recipient without their identities.
    @Test func rekey_keepsEveryRecipient() throws {
        let (w, alice, _) = try team()
        let added = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", alice, "--name", "a", "v.vault",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        let rekey = try w.run(["rekey", "--password-file", "pw", "v.vault"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let after = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))
        #expect(before != after)
        let get = try w.run(["get", "--identity", "alice.id", "--service", "db", "--account", "app", "v.vault"])
        #expect(get.stdout == "s3cret", "\(get.stderr)")
    }

    /// Bad input gets a clear usage error; an identity file readable by others is refused.
    @Test func badInput_isAUsageError() throws {
        let (w, alice, _) = try team()
        let badKey = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", "VAULT-RECIPIENT-1:xyz", "--name", "x",
            "v.vault",
        ])
        #expect(badKey.status == 64)
        let noName = try w.run(["recipients", "add", "--password-file", "pw", "--recipient", alice, "v.vault"])
        #expect(noName.status == 64)
        let action = try w.run(["recipients", "list", "--password-file", "pw", "v.vault"])
        #expect(action.status == 64)
        let longName = String(repeating: "n", count: 65)
        let tooLong = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", alice, "--name", longName, "v.vault",
        ])
        #expect(tooLong.status != 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: w.file("alice.id"))
        let open = try w.run(["get", "--identity", "alice.id", "--service", "db", "--account", "app", "v.vault"])
        #expect(open.status == 64)
        #expect(open.stderr.contains("mode 0600"))
        let contents = try String(contentsOfFile: w.file("alice.id"), encoding: .utf8)
        #expect(!open.stderr.contains(contents.split(separator: "\n").last!))
    }

    /// R12-MIG-1: migrate never downgrades, and --to takes 1.1, 1.2, 2.0 or 3 only (R2-MIG-1).
    @Test func migrateTo_refusesDowngradeAndUnknownVersions() throws {
        let (w, _, _) = try team()
        let down = try w.run(["migrate", "--to", "1.1", "--password-file", "pw", "v.vault"])
        #expect(down.status == 5)
        let unknown = try w.run(["migrate", "--to", "4.0", "--password-file", "pw", "v.vault"])
        #expect(unknown.status == 64)
        let plain = try w.run(["migrate", "--password-file", "pw"] + Workspace.fastKDF + ["v.vault"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("vault 1.2 (current)"))
    }
}

@Suite("keygen and backup names")
struct KeygenAndBackupNameTests {
    /// Before, `keygen ~/.config/vault/identity` failed when the folder did not exist.
    @Test func keygen_createsMissingFolders_private() throws {
        let w = try Workspace()
        let made = try w.run(["keygen", w.file("config/vault/identity")])
        #expect(made.status == 0, "\(made.stderr)")
        var info = stat()
        #expect(stat(w.file("config/vault"), &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(w.file("config"), &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(w.file("config/vault/identity"), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// Before, a second `backup` in the same second failed ("already exists").
    @Test func backupsInTheSameSecond_getDistinctNames() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        var paths: [String] = []
        for _ in 0..<3 {
            let backup = try w.run(["backup", "--password-file", "pw", "v.vault"])
            #expect(backup.status == 0, "\(backup.stderr)")
            paths.append(backup.stdout)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: w.path).filter { $0.contains(".backup-") }
        #expect(names.count == 3, "\(names) \(paths)")
    }
}

@Suite("Sealed identity files (R12-TXT-3)")
struct SealedIdentityCommandTests {
    /// keygen --passphrase writes a sealed identity; every reader asks for the passphrase (here from
    /// VAULTTOOL_IDENTITY_PASSPHRASE_FILE); without it and no terminal, exit 64; a wrong one, exit 3.
    @Test func keygenPassphrase_sealsTheIdentity_andReadersNeedIt() throws {
        let (w, _, _) = try RecipientCommandTests().team()
        try w.write("passphrase", "a long identity passphrase\n")
        let env = ["VAULTTOOL_IDENTITY_PASSPHRASE_FILE": w.file("passphrase")]
        let made = try w.run(["keygen", "--passphrase", "sealed.id"], environment: env)
        #expect(made.status == 0, "\(made.stderr)")
        let key = made.stdout.trimmingCharacters(in: .newlines)
        let text = try String(contentsOfFile: w.file("sealed.id"), encoding: .utf8)
        #expect(text.contains("VAULT-IDENTITY-SEALED-1:") && !text.contains("VAULT-IDENTITY-1:"))
        let add = try w.run([
            "recipients", "add", "--password-file", "pw", "--recipient", key, "--name", "s", "v.vault",
        ])
        #expect(add.status == 0, "\(add.stderr)")
        let get = ["get", "--identity", "sealed.id", "--service", "db", "--account", "app", "v.vault"]
        let opened = try w.run(get, environment: env)
        #expect(opened.status == 0 && opened.stdout.hasPrefix("s3cret"), "\(opened.stderr)")
        let noPassphrase = try w.run(get)
        #expect(noPassphrase.status == 64 && noPassphrase.stderr.contains("VAULTTOOL_IDENTITY_PASSPHRASE_FILE"))
        try w.write("wrong", "not it\n")
        let wrong = try w.run(get, environment: ["VAULTTOOL_IDENTITY_PASSPHRASE_FILE": w.file("wrong")])
        #expect(wrong.status == 3 && wrong.stderr.contains("Wrong passphrase for the identity file"), "\(wrong.stderr)")
        #expect(try w.run(["keygen", "--recipient-of", "sealed.id"], environment: env).stdout == made.stdout)
        // A driver never prompts: git-diff reads the variable too.
        let diff = try w.run(["git-diff", "--identity", "sealed.id", "v.vault"], environment: env)
        #expect(diff.status == 0 && diff.stdout.contains("secret: fingerprint "), "\(diff.stdout) \(diff.stderr)")
    }
}
