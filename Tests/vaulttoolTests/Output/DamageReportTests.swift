// vaulttool tests: damaged records, backups and device secrets, driven through the built binary
// (issue 12 section 2; issue 9 section 5, device-secret file checks).

import Foundation
import Glibc
import Testing
import VaultFormat

/// Flips one byte of item `id`'s record in `vault` (found through the library): in the attributes'
/// tag (nothing of the item opens) or in the secret's ciphertext (the attributes still open).
private func damage(_ id: String, attributes: Bool, in vault: String) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: vault)))
    let snapshot = try VaultSnapshot.open(bytes, with: .password(Workspace.password))
    let index = try snapshot.index
    let position = try #require(
        (0..<index.count).first { index.entry(at: $0).itemID.description == id }
    )
    let start = snapshot.recordsOffset + index.offsets[position]
    let offset = attributes ? start + index.entry(at: position).recordLength - 1 : start + 24
    bytes[offset] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: vault))
}

/// The item IDs of `v.vault` by service.
private func ids(_ w: Workspace) throws -> [String: String] {
    let items = try w.run(["list", "--json", "--password-file", "pw", "v.vault"]).json()["items"] as? [[String: Any]]
    return Dictionary(uniqueKeysWithValues: (items ?? []).map { ($0["service"] as! String, $0["id"] as! String) })
}

private func mode(_ path: String) throws -> Int? {
    try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
}

@Suite("Damaged vaults and recovery")
struct DamageRecoveryTests {
    @Test func oneDamagedRecord_isNamed_salvageReadsTheRest_andRmByIDRemovesIt() throws {
        let w = try Workspace()
        try w.makeVault()
        for service in ["a", "b", "c"] { try w.set("secret-\(service)", ["--service", service, "--account", "x"]) }
        let id = try ids(w)["b"]!
        try damage(id, attributes: true, in: w.file("v.vault"))

        let list = try w.run(["list", "--password-file", "pw", "v.vault"])
        #expect(list.status == 4)
        #expect(list.stderr.hasPrefix("Error: The vault is damaged or was tampered with: item \(id): "))
        #expect(list.stderr.contains("'list --salvage'") && list.stderr.contains("'rm --id \(id)'"))
        #expect(!list.stderr.contains("restore it from a backup"))

        let salvage = try w.run(["list", "--salvage", "--password-file", "pw", "v.vault"])
        #expect(salvage.status == 4)
        #expect(salvage.stdout.split(separator: "\n").count == 3)  // header, a, c
        #expect(salvage.stdout.contains("secret") == false)
        #expect(salvage.stderr.contains("Damaged: item \(id): an item's attributes failed authentication\n"))
        #expect(salvage.stderr.contains("Error: The vault is damaged or was tampered with: 1 of 3 items is damaged"))

        let json = try w.run(["list", "--salvage", "--json", "--password-file", "pw", "v.vault"])
        #expect(json.status == 4)
        let report = try json.json()
        #expect((report["items"] as? [[String: Any]])?.compactMap { $0["service"] as? String }.sorted() == ["a", "c"])
        #expect((report["damaged"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])

        let export = try w.run(["export", "--salvage", "--password-file", "pw", "v.vault"])
        #expect(export.status == 4)
        let exported = try export.json()["items"] as? [[String: Any]]
        #expect(exported?.compactMap { $0["secret"] as? String }.sorted() == ["secret-a", "secret-c"])
        #expect(export.stderr.contains("Damaged: item \(id)"))
        #expect(try w.run(["export", "--password-file", "pw", "v.vault"]).status == 4)

        let inspect = try w.run(["inspect", "--items", "--password-file", "pw", "v.vault"])
        #expect(inspect.status == 4)
        #expect(inspect.stdout.contains("DAMAGED: item \(id): "))

        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 4)
        #expect(verify.stdout == "damaged: item \(id): an item's attributes failed authentication\n")

        let remove = try w.run(["rm", "--id", id, "--password-file", "pw", "v.vault"])
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout == "Removed 1 item.\n")
        let after = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(after.status == 0)
        #expect(after.stdout.hasPrefix("ok: 2 items verified"))
        let again = try w.run(["rm", "--id", id, "--password-file", "pw", "v.vault"])
        #expect(again.status == 2)
    }

    @Test func aDamagedSecret_isNamedWithServiceAndAccount() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s1", ["--service", "a", "--account", "x"])
        try w.set("s2", ["--service", "b", "--account", "y"])
        let id = try ids(w)["a"]!
        try damage(id, attributes: false, in: w.file("v.vault"))

        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 4)
        #expect(verify.stdout == "damaged: item \(id) (generic \"a\"/\"x\"): an item's secret failed authentication\n")
        let get = try w.run(["get", "--password-file", "pw", "--service", "a", "--account", "x", "v.vault"])
        #expect(get.status == 4)
        #expect(get.stdout == "")
        #expect(get.stderr.contains("item \(id) (generic \"a\"/\"x\")"))
        #expect(try w.run(["get", "--password-file", "pw", "--service", "b", "v.vault"]).stdout == "s2")
    }

    /// Format 1.1, where a damaged record is in no commit's hash (format 3: `Format3VaultTests`).
    @Test func setOverADamagedRecord_namesIt_andWorksOnceItIsRemoved() throws {
        let w = try Workspace()
        try w.makeVault(format: "1.1")
        try w.set("old", ["--service", "s", "--account", "a"])
        let id = try ids(w)["s"]!
        try damage(id, attributes: true, in: w.file("v.vault"))
        let set = try w.run(
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],
            stdin: "new"
        )
        #expect(set.status == 4)
        #expect(set.stderr.hasPrefix("Error: The vault is damaged or was tampered with: item \(id): "))
        #expect(set.stderr.contains("'rm --id \(id)'"))
        #expect(try w.run(["rm", "--id", id, "--password-file", "pw", "v.vault"]).status == 0)
        try w.set("new", ["--service", "s", "--account", "a"])
        #expect(
            try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"]).stdout == "new"
        )
    }

    @Test func backup_writesAVerifiedCopy_andNeverReplacesAFile() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("kept", ["--service", "s", "--account", "a"])
        let original = try Data(contentsOf: URL(fileURLWithPath: w.file("v.vault")))

        let size =
            original.count >= 1000
            ? "\(original.count / 1000),\(String(format: "%03d", original.count % 1000))" : "\(original.count)"
        let named = try w.run(["backup", "--password-file", "pw", "v.vault", "copy.vault"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(
            named.stdout
                == "Backed up v.vault (generation 2, \(size) B) to copy.vault; "
                + "header MAC and index authenticated.\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("copy.vault"))) == original)
        #expect(try mode(w.file("copy.vault")) == 0o600)
        #expect(try w.run(["get", "--password-file", "pw", "--service", "s", "copy.vault"]).stdout == "kept")

        let again = try w.run(["backup", "v.vault", "copy.vault"])
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("Error: A file already exists at "))

        let byDefault = try w.run(["backup", "v.vault"])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(byDefault.stdout.hasSuffix("; header and layout checked.\n"))
        let names = try FileManager.default.contentsOfDirectory(atPath: w.path).filter {
            $0.range(of: #"^v\.vault\.backup-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil
        }
        #expect(names.count == 1)

        try w.write("junk", "not a vault at all")
        let junk = try w.run(["backup", "junk", "junk.copy"])
        #expect(junk.status == 4)
        #expect(!FileManager.default.fileExists(atPath: w.file("junk.copy")))
    }

    @Test func deviceSecretInit_creates0600_once() throws {
        let w = try Workspace()
        let created = try w.run(["device-secret", "init", "ds"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.hasPrefix("Created the device secret ds (32 bytes, mode 0600)."))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: w.file("ds")))
        #expect(bytes.count == 32)
        #expect(try mode(w.file("ds")) == 0o600)
        let again = try w.run(["device-secret", "init", "ds"])
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("Error: A device secret already exists at 'ds' and is kept"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.file("ds"))) == bytes)

        // The standard place: $XDG_DATA_HOME/vault/device-secret, unless the variable names one.
        let environment = ["XDG_DATA_HOME": w.file("xdg"), "VAULTTOOL_DEVICE_SECRET_FILE": ""]
        let path = try w.run(["device-secret", "path"], environment: environment)
        #expect(path.stdout == w.file("xdg") + "/vault/device-secret\n")
        #expect(try w.run(["device-secret", "init"], environment: environment).status == 0)
        #expect(try mode(w.file("xdg/vault/device-secret")) == 0o600)
        let named = try w.run(["device-secret", "path"], environment: ["VAULTTOOL_DEVICE_SECRET_FILE": "/x/ds"])
        #expect(named.stdout == "/x/ds\n")
        #expect(try w.run(["device-secret", "rotate"]).status == 64)
    }

    @Test func getOfAThisDeviceOnlyItem_withoutTheDeviceSecret_saysItExists() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(try w.run(["device-secret", "init", "ds"]).status == 0)
        try w.set(
            "bound",
            [
                "--service", "s", "--account", "a", "--accessibility", "whenUnlockedThisDeviceOnly",
                "--device-secret-file", "ds",
            ]
        )
        let without = try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(without.status == 3)
        #expect(
            without.stderr.contains("exists but is whenUnlockedThisDeviceOnly: it needs this machine's device secret")
        )
        #expect(without.stderr.contains("'vaulttool device-secret init'"))
        let search = try w.run(["get", "--password-file", "pw", "--service", "s", "v.vault"])
        #expect(search.status == 2)
        #expect(search.stderr.contains("1 ThisDeviceOnly item cannot be searched without this machine's device secret"))
        let with = try w.run(
            [
                "get", "--password-file", "pw", "--device-secret-file", "ds", "--service", "s", "--account", "a",
                "v.vault",
            ]
        )
        #expect(with.stdout == "bound")
    }

    @Test func aDeviceSecretFileOthersCanRead_isRefused_fromTheOptionAndTheEnvironment() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("loose", String(repeating: "k", count: 32))
        #expect(chmod(w.file("loose"), 0o644) == 0)
        let refused =
            "Error: The device secret 'loose' is refused: a device secret must be a regular file "
            + "owned by this user with mode 0600\n"
        let option = try w.run(["list", "--password-file", "pw", "--device-secret-file", "loose", "v.vault"])
        #expect(option.status == 64)
        #expect(option.stderr == refused)
        let environment = try w.run(
            ["list", "--password-file", "pw", "v.vault"],
            environment: ["VAULTTOOL_DEVICE_SECRET_FILE": "loose"]
        )
        #expect(environment.status == 64)
        #expect(environment.stderr == refused)

        #expect(chmod(w.file("loose"), 0o600) == 0)
        #expect(symlink(w.file("loose"), w.file("link")) == 0)
        let link = try w.run(["list", "--password-file", "pw", "--device-secret-file", "link", "v.vault"])
        #expect(link.status == 64)
        #expect(link.stderr.contains("is refused: it is a symbolic link"))
        #expect(try w.run(["list", "--password-file", "pw", "--device-secret-file", "loose", "v.vault"]).status == 0)
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aDeviceSecretFileOfAnotherUser_isRefused() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("theirs", String(repeating: "k", count: 32))
        #expect(chmod(w.file("theirs"), 0o600) == 0)
        #expect(chown(w.file("theirs"), 65534, 65534) == 0)
        let result = try w.run(["list", "--password-file", "pw", "--device-secret-file", "theirs", "v.vault"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("is refused: a device secret must be a regular file owned by this user"))
    }
}
