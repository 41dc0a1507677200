// vaulttool tests: every command end to end, through the built binary.

import Foundation
import Testing

@Suite("Commands")
struct CommandTests {
    @Test func create_set_get_roundTripsTheRawSecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("ghp_token\n with newline", ["--service", "github.com", "--account", "ci-bot"])
        let get = try w.run([
            "get", "--password-file", "pw", "--service", "github.com", "--account", "ci-bot", "v.vault",
        ])
        #expect(get.status == 0)
        #expect(get.stdout == "ghp_token\n with newline")
        #expect(get.stderr == "")
    }

    @Test func set_replacesTheSecretOfTheSameItem_andKeepsItsID() throws {
        let w = try Workspace()
        try w.makeVault()
        let added = try w.set("one", ["--service", "s", "--account", "a", "--label", "First"])
        #expect(added.stdout.hasPrefix("Added item "))
        let updated = try w.set("two", ["--service", "s", "--account", "a"])
        #expect(updated.stdout == added.stdout.replacingOccurrences(of: "Added", with: "Updated"))
        let get = try w.run(["get", "--json", "--password-file", "pw", "--service", "s", "v.vault"])
        let json = try get.json()
        #expect(json["secret"] as? String == "two")
        #expect(json["label"] as? String == "First")
        // The version names the write (format 3: its event, Spec/format-v3.md §8): it changed.
        // A 64-bit number: compared as text, as a JSON reader without 64-bit integers must.
        func version(_ object: [String: Any]) -> String? { object["version"].map { "\($0)" } }
        let first = try w.run(["get", "--json", "--password-file", "pw", "--service", "s", "v.vault"]).json()
        #expect(version(json) != nil && version(json) != "0")
        #expect(version(first) == version(json))
        try w.set("three", ["--service", "s", "--account", "a"])
        let third = try w.run(["get", "--json", "--password-file", "pw", "--service", "s", "v.vault"]).json()
        #expect(version(third) != nil && version(third) != version(json))
    }

    @Test func set_readsTheSecretFromAFile_andAnInternetPasswordFromItsOptions() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("secret.bin", "from-file")
        let set = try w.run([
            "set", "--password-file", "pw", "--server", "db.example", "--protocol", "https", "--port", "8443",
            "--account", "app", "--accessibility", "afterFirstUnlock", "--secret-file", "secret.bin", "v.vault",
        ])
        #expect(set.status == 0, "\(set.stderr)")
        let get = try w.run(["get", "--json", "--password-file", "pw", "--server", "db.example", "v.vault"])
        let json = try get.json()
        #expect(json["class"] as? String == "internetPassword")
        #expect(json["accessibility"] as? String == "afterFirstUnlock")
        #expect(json["port"] as? Int == 8443)
        #expect(json["secret"] as? String == "from-file")
    }

    @Test func get_ofMissingItem_exits2_withOneLine() throws {
        let w = try Workspace()
        try w.makeVault()
        let get = try w.run(["get", "--password-file", "pw", "--service", "nope", "--account", "x", "v.vault"])
        #expect(get.status == 2)
        #expect(get.stdout == "")
        #expect(get.stderr == "Error: No item matches\n")
    }

    @Test func get_withTwoMatches_exits1() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("1", ["--service", "s", "--account", "a"])
        try w.set("2", ["--service", "s", "--account", "b"])
        let get = try w.run(["get", "--password-file", "pw", "--service", "s", "v.vault"])
        #expect(get.status == 1)
        #expect(get.stderr.contains("2 items match"))
    }

    @Test func list_json_hasEveryItemWithoutSecrets() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("alpha-secret", ["--service", "a", "--account", "x", "--access-group", "team"])
        try w.set("beta-secret", ["--service", "b", "--account", "y"])
        let list = try w.run(["list", "--password-file", "pw", "--json", "v.vault"])
        #expect(list.status == 0)
        #expect(!list.stdout.contains("alpha-secret"))
        let json = try list.json()
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.count == 2)
        #expect(json["unavailable"] as? Int == 0)
        #expect(Set(items.compactMap { $0["service"] as? String }) == ["a", "b"])
        for item in items {
            #expect(item["secret"] == nil)
            #expect((item["id"] as? String)?.count == 32)
            #expect(item["secretLength"] as? Int != nil)
        }
        let filtered = try w.run(["list", "--password-file", "pw", "--json", "--access-group", "team", "v.vault"])
        #expect((try filtered.json()["items"] as? [Any])?.count == 1)
        let human = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(
            human.stdout.hasPrefix("CLASS    ACCESSIBILITY  SERVICE/SERVER  ACCOUNT  ACCESS GROUP  LABEL  MODIFIED")
        )
        #expect(!human.stdout.contains("secret"))
    }

    @Test func rm_removesOneItem_andAMissingOneExits2() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("1", ["--service", "s", "--account", "a"])
        try w.set("2", ["--service", "s", "--account", "b"])
        let rm = try w.run(["rm", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(rm.status == 0)
        #expect(rm.stdout == "Removed 1 item.\n")
        let again = try w.run(["rm", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(again.status == 2)
        let all = try w.run(["rm", "--password-file", "pw", "--all", "--service", "s", "v.vault"])
        #expect(all.stdout == "Removed 1 item.\n")
        // Format 3 keeps the counts in the encrypted root: a credential reads them.
        let inspect = try w.run(["inspect", "--json", "--password-file", "pw", "v.vault"])
        #expect(try inspect.json()["items"] as? Int == 0)
        #expect(try inspect.json()["deletions"] as? Int == 2)
    }

    @Test func verify_ofASoundVault_exits0() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("x", ["--service", "s", "--account", "a"])
        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "ok: 1 items verified, generation 2\n")
    }

    @Test func inspect_json_describesTheHeader() throws {
        let w = try Workspace()
        try w.makeVault()
        let json = try w.run(["inspect", "--json", "v.vault"]).json()
        #expect(json["file"] as? String == "v.vault")
        #expect((json["format"] as? [String: Int]) == ["major": 3, "minor": 0], "new vaults are format 3")
        #expect((json["vaultID"] as? String)?.count == 32)
        #expect(json["generation"] as? Int == 1)
        #expect(json["items"] == nil, "format 3 counts items in its encrypted root")
        #expect(json["writable"] as? Bool == true)
        #expect((json["structure"] as? [String: Any])?["ok"] as? Bool == true)
        let slots = try #require(json["keyslots"] as? [[String: Any]])
        #expect(slots.count == 1)
        #expect(slots[0]["kind"] as? String == "password")
        #expect(slots[0]["scope"] as? String == "master")
        #expect(slots[0]["weak"] as? Bool == false)
        #expect((slots[0]["kdf"] as? [String: Any])?["algorithm"] as? String == "argon2id")
        #expect(numbers(slots[0]["kdf"]) == ["memoryKiB": 19456, "iterations": 2, "lanes": 1])
        let sizes = try #require(json["sizes"] as? [String: Int])
        #expect(sizes["total"] == sizes["committed"]! + sizes["uncommitted"]!)
        #expect(sizes["header"]! >= 1_024 && sizes["header"]! < sizes["committed"]!)
        // A format-1.1 vault lays out header, index and records, and counts its items in the clear.
        try w.makeVault("old.vault", format: "1.1")
        let old = try w.run(["inspect", "--json", "old.vault"]).json()
        #expect((old["format"] as? [String: Int]) == ["major": 1, "minor": 1])
        #expect(old["items"] as? Int == 0)
        let oldSizes = try #require(old["sizes"] as? [String: Int])
        #expect(oldSizes["total"] == oldSizes["header"]! + oldSizes["index"]! + oldSizes["records"]!)
        let authenticated = try w.run(["inspect", "--json", "--password-file", "pw", "v.vault"]).json()
        #expect(authenticated["items"] as? Int == 0 && authenticated["deletions"] as? Int == 0)
        #expect((authenticated["sizes"] as? [String: Int])?["live"] == sizes["committed"]! - 1_024)
    }

    @Test func inspect_items_showsOneLinePerItem_neverASecret() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("top-secret-value", ["--service", "github.com", "--account", "ci", "--label", "CI token"])
        let text = try w.run(["inspect", "--items", "--password-file", "pw", "v.vault"])
        #expect(text.status == 0)
        #expect(!text.stdout.contains("top-secret-value"))
        let lines = text.stdout.split(separator: "\n")
        #expect(
            lines.contains { $0.hasPrefix("generic  whenUnlocked   github.com      ci       -             CI token") }
        )
        let json = try w.run(["inspect", "--items", "--json", "--password-file", "pw", "v.vault"]).json()
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries[0]["secret"] == nil)
        #expect(entries[0]["secretLength"] as? Int == 16)
        #expect(json["unavailableItems"] as? Int == 0)
    }

    @Test func export_leavesOutDeviceOnlyItems_warns_andImportsBack() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s1", ["--service", "one", "--account", "a", "--label", "L"])
        try w.set("s2", ["--server", "two.example", "--protocol", "https", "--account", "b"])
        let export = try w.run(["export", "--password-file", "pw", "v.vault"])
        #expect(export.status == 0)
        #expect(export.stderr.hasPrefix("Warning: the export is plaintext"))
        let json = try export.json()
        #expect(json["format"] as? String == "vault-items")
        #expect(json["version"] as? Int == 1)
        #expect((json["items"] as? [[String: Any]])?.compactMap { $0["secret"] as? String }.sorted() == ["s1", "s2"])
        try export.stdoutBytes.withUnsafeBufferPointer {
            try Data($0).write(to: URL(fileURLWithPath: w.file("e.json")))
        }
        try w.makeVault("copy.vault")
        let imported = try w.run(["import", "--password-file", "pw", "--from", "json", "e.json", "copy.vault"])
        #expect(imported.stdout.hasPrefix("Imported 2 items from e.json (json) into copy.vault."))
        let original = try w.run(["list", "--json", "--password-file", "pw", "v.vault"]).json()
        let copy = try w.run(["list", "--json", "--password-file", "pw", "copy.vault"]).json()
        func strip(_ json: [String: Any]) -> [NSDictionary] {
            (json["items"] as! [[String: Any]]).map { item in
                var item = item
                item["version"] = nil
                return item as NSDictionary
            }
        }
        #expect(strip(original) == strip(copy))
        let toFile = try w.run(["export", "--password-file", "pw", "--output", "out.json", "v.vault"])
        #expect(toFile.stdout == "")
        let mode = try FileManager.default.attributesOfItem(atPath: w.file("out.json"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func passwd_changesThePassword_andAddsAndRemovesKeyFilesAndRecovery() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("kept", ["--service", "s", "--account", "a"])
        try w.write("new", "new password")
        let change = try w.run(["passwd", "--password-file", "pw", "--new-password-file", "new", "v.vault"])
        #expect(
            change.stdout.hasPrefix(
                "Changed the password of keyslot #0; replaced the master key (1 item sealed again)."
            ),
            "\(change.stderr)"
        )
        #expect(try w.run(["verify", "--password-file", "pw", "v.vault"]).status == 3)
        let get = try w.run(["get", "--password-file", "new", "--service", "s", "v.vault"])
        #expect(get.stdout == "kept")
        let slot = try w.run(["inspect", "--json", "v.vault"]).json()["keyslots"] as? [[String: Any]]
        #expect((slot?[0]["kdf"] as? [String: Any])?["memoryKiB"] as? Int == 19456)

        try w.write("key", String(repeating: "k", count: 64))
        let add = try w.run(["passwd", "--password-file", "new", "--add-key-file", "key", "v.vault"])
        #expect(add.stdout == "Added key-file keyslot #1.\n")
        #expect(try w.run(["get", "--key-file", "key", "--service", "s", "v.vault"]).stdout == "kept")
        let recovery = try w.run(
            ["passwd", "--key-file", "key", "--add-recovery"] + Workspace.fastKDF + ["v.vault"]
        )
        #expect(
            recovery.stdout.hasPrefix("Added recovery keyslot #2.\nRecovery password (shown once; keep it offline): ")
        )
        let code = String(recovery.stdout.split(separator: " ").last!.dropLast())
        try w.write("code", code)
        #expect(try w.run(["get", "--password-file", "code", "--service", "s", "v.vault"]).stdout == "kept")
        // The rekey needs the recovery slot's password too, or it would have to drop that slot.
        let refused = try w.run(["passwd", "--password-file", "new", "--remove-key-file", "v.vault"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Keyslot #1 (password) cannot be rewrapped"), "\(refused.stderr)")
        let remove = try w.run(
            ["passwd", "--password-file", "new", "--keep-password-file", "code", "--remove-key-file", "v.vault"]
        )
        #expect(remove.stdout.hasPrefix("Removed 1 key-file keyslot; replaced the master key"), "\(remove.stderr)")
        #expect(try w.run(["get", "--password-file", "code", "--service", "s", "v.vault"]).stdout == "kept")
        #expect(try w.run(["get", "--key-file", "key", "--service", "s", "v.vault"]).status == 3)
        let last = try w.run(["passwd", "--password-file", "new", "--remove-keyslot", "7", "v.vault"])
        #expect(last.status == 2)
    }

    @Test func create_withKeyFileOnly_andWithBoth() throws {
        let w = try Workspace()
        try w.write("key", "0123456789abcdef0123456789abcdef")
        let keyOnly = try w.run(["create", "--key-file", "key", "k.vault"])
        #expect(keyOnly.stdout.hasSuffix("/k.vault (keyslot: keyFile).\n"))
        let both = try w.run(
            ["create", "--key-file", "key", "--password-file", "pw"] + Workspace.fastKDF + ["b.vault"]
        )
        #expect(both.stdout.contains("(keyslot: passwordAndKeyFile, Argon2id 19 MiB, 2 passes, 1 lane)"))
        #expect(try w.run(["verify", "--password-file", "pw", "b.vault"]).status == 3)
        #expect(try w.run(["verify", "--password-file", "pw", "--key-file", "key", "b.vault"]).status == 0)
    }

    @Test func create_calibratesPassesOnly() throws {
        let w = try Workspace()
        let create = try w.run(
            [
                "create", "--password-file", "pw", "--kdf-memory", "19456", "--kdf-lanes", "1", "--kdf-target-ms",
                "150",
                "v.vault",
            ])
        #expect(create.status == 0, "\(create.stderr)")
        let slot = try #require(
            (try w.run(["inspect", "--json", "v.vault"]).json()["keyslots"] as? [[String: Any]])?.first
        )
        let kdf = numbers(slot["kdf"])
        #expect(kdf["memoryKiB"] == 19456)
        #expect(kdf["lanes"] == 1)
        #expect(kdf["iterations"]! >= 3)
    }

    @Test func generate_defaultShape_andCustomAlphabet() throws {
        let grouped = try Tool.run(["generate"])
        #expect(
            grouped.stdout.range(of: #"^[a-zA-Z2-9]{3}(-[a-zA-Z2-9]{3}){3}$"#, options: .regularExpression) != nil
        )
        let pin = try Tool.run(["generate", "--length", "6", "--alphabet", "0123456789", "--count", "3"])
        #expect(pin.stdout.range(of: #"^([0-9]{6}\n){3}$"#, options: .regularExpression) != nil)
    }

    @Test func completions_forBashAndZsh() throws {
        let bash = try Tool.run(["completions", "bash"])
        #expect(bash.stdout.contains("complete -F _vaulttool vaulttool"))
        #expect(bash.stdout.contains("--password-file"))
        let zsh = try Tool.run(["completions", "zsh"])
        #expect(zsh.stdout.hasPrefix("#compdef vaulttool\n"))
        #expect(try Tool.run(["completions", "fish"]).status == 64)
    }

    @Test func version() throws {
        let result = try Tool.run(["--version"])
        #expect(
            result.stdout
                == "vaulttool 0.3.0 (reads vault formats 1.0 to 1.2, 2.0 and 3.0; creates 3.0, or 1.1 with --format; "
                + "migrate --to writes 1.2, 2.0 or 3.0)\n"
        )
    }
}
