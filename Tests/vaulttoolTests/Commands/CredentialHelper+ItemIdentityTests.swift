// vaulttool tests: one internet password has one identity whoever writes it: the CLI, the git and
// docker helpers, or an app through the library (Spec/library-semantics.md, L-KC-15).

import Foundation
import Testing
import VaultFormat
import VaultIO

/// The workspace's vault opened through the library, as an app opens it.
private func appVault(_ w: Workspace) throws -> Vault {
    try Vault(
        path: w.file("v.vault"),
        credentials: .password(Workspace.password),
        configuration: .insecureForTesting()
    )
}

/// `credential-helper git <action>` on the workspace's vault.
private func git(_ w: Workspace, _ action: String, _ input: String) throws -> RunResult {
    try w.run(["credential-helper", "git", "--vault", "v.vault", "--password-file", "pw", action], stdin: input)
}

@Suite("One item identity across writers (L-KC-15)")
struct ItemIdentityInteropTests {
    @Test func cliSet_isFoundByTheLibrary_inBothServerSpellings() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("from-cli", ["--server", "GitHub.com", "--protocol", "https", "--account", "alice"])
        let vault = try appVault(w)
        let byURL = try Keychain(server: #require(URL(string: "https://github.com")), vault: vault)
        #expect(try byURL.string(forKey: "alice") == "from-cli")
        let keychainAccessSpelling = Keychain(server: "https://github.com", protocol: .https, vault: vault)
        #expect(try keychainAccessSpelling.string(forKey: "alice") == "from-cli")
        #expect(try byURL.allKeys() == ["alice"])
    }

    @Test func gitHelperStore_isFoundByTheLibrary_andTheCLI() throws {
        let w = try Workspace()
        try w.makeVault()
        let store = try git(w, "store", "protocol=https\nhost=GitHub.com\nusername=bob\npassword=from-git\n\n")
        #expect(store.status == 0, "\(store.stderr)")
        let vault = try appVault(w)
        let site = try Keychain(server: #require(URL(string: "https://GITHUB.com/")), vault: vault)
        #expect(try site.string(forKey: "bob") == "from-git")
        let get = try w.run(["get", "--password-file", "pw", "--server", "github.com", "--account", "bob", "v.vault"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "from-git")
    }

    @Test func libraryWrites_areFoundByTheCLI_andTheGitHelper() throws {
        let w = try Workspace()
        try w.makeVault()
        let vault = try appVault(w)
        try Keychain(server: "https://github.com", protocol: .https, vault: vault).set("from-app", forKey: "carol")
        try Keychain(server: #require(URL(string: "https://Example.org:8443/api")), vault: vault)
            .set("from-url", forKey: "dave")
        let get = try w.run([
            "get", "--password-file", "pw", "--server", "GitHub.com", "--protocol", "HTTPS", "--account", "carol",
            "v.vault",
        ])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "from-app")
        let fromGit = try git(w, "get", "protocol=https\nhost=github.com\n\n")
        #expect(fromGit.stdout == "username=carol\npassword=from-app\n")
        let withPort = try git(w, "get", "protocol=https\nhost=example.org:8443\nusername=dave\n\n")
        #expect(withPort.stdout == "username=dave\npassword=from-url\n")
        let byURL = try w.run(["get", "--password-file", "pw", "--server", "https://example.org:8443/api", "v.vault"])
        #expect(byURL.stdout == "from-url", "\(byURL.stderr)")
    }

    /// L-KC-15 rules 5 and 6: a `host:port` server without a scheme and a final dot.
    @Test func hostPortWithoutAScheme_andAFinalDot_nameTheURLsItem() throws {
        let w = try Workspace()
        try w.makeVault()
        let vault = try appVault(w)
        try Keychain(server: "Example.org:8443", protocol: .https, vault: vault).set("split", forKey: "dave")
        let byURL = try w.run(["get", "--password-file", "pw", "--server", "https://example.org:8443", "v.vault"])
        #expect(byURL.stdout == "split", "\(byURL.stderr)")
        let fromGit = try git(w, "get", "protocol=https\nhost=example.org:8443\nusername=dave\n\n")
        #expect(fromGit.stdout == "username=dave\npassword=split\n")
        let store = try git(w, "store", "protocol=https\nhost=github.com.\nusername=bob\npassword=dotted\n\n")
        #expect(store.status == 0, "\(store.stderr)")
        let site = try Keychain(server: #require(URL(string: "https://github.com")), vault: vault)
        #expect(try site.string(forKey: "bob") == "dotted")
    }

    /// Port 0 is "no port", never an override: `--server h:5000 --port 0` names port 5000, so it
    /// cannot overwrite or read the item of `h` without a port (found by an outside review).
    @Test func portZero_withAHostPortServer_namesThatPort_notTheItemWithoutOne() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("PROD", ["--server", "registry.example.com", "--protocol", "https", "--account", "ci"])
        let staging = [
            "--server", "registry.example.com:5000", "--protocol", "https", "--port", "0", "--account", "ci",
        ]
        #expect(try w.set("STAGING", staging).stdout.hasPrefix("Added item"))
        let prod = ["--server", "registry.example.com", "--protocol", "https", "--account", "ci", "v.vault"]
        #expect(try w.run(["get", "--password-file", "pw"] + prod).stdout == "PROD")
        #expect(try w.run(["get", "--password-file", "pw"] + staging + ["v.vault"]).stdout == "STAGING")
        let samePort = [
            "--server", "registry.example.com:5000", "--port", "5000", "--protocol", "https", "--account", "ci",
        ]
        #expect(try w.set("STAGING2", samePort).stdout.hasPrefix("Updated item"))
        let git = try git(w, "get", "protocol=https\nhost=registry.example.com:5000\n\n")
        #expect(git.stdout == "username=ci\npassword=STAGING2\n")
    }

    /// L-KC-15 rule 6 for every helper action: `host.` names the item `host` in store, get and erase.
    @Test func aFinalDot_namesTheSameItem_inEveryHelperAction() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(try git(w, "store", "protocol=https\nhost=h2.:8443\nusername=u\npassword=P\n\n").status == 0)
        #expect(try git(w, "get", "protocol=https\nhost=h2.:8443\nusername=u\n\n").stdout == "username=u\npassword=P\n")
        #expect(try git(w, "erase", "protocol=https\nhost=h2.:8443\nusername=u\n\n").status == 0)
        #expect(try git(w, "get", "protocol=https\nhost=h2:8443\nusername=u\n\n").stdout.isEmpty)
        let docker = ["credential-helper", "docker", "--vault", "v.vault", "--password-file", "pw"]
        let store = try w.run(
            docker + ["store"],
            stdin: #"{"ServerURL":"https://reg.example.com:5000","Username":"d","Secret":"S"}"#
        )
        #expect(store.status == 0, "\(store.stdout)")
        #expect(try w.run(docker + ["get"], stdin: "https://reg.example.com.:5000").stdout.contains(#""Secret":"S""#))
        #expect(try w.run(docker + ["erase"], stdin: "https://reg.example.com.:5000").status == 0)
        #expect(try w.run(docker + ["list"]).stdout == "{}\n")
    }

    @Test func everyWriter_updatesTheOneItem_insteadOfAddingASecond() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("one", ["--server", "GitHub.com", "--protocol", "https", "--account", "erin"])
        let vault = try appVault(w)
        let site = try Keychain(server: #require(URL(string: "https://github.com")), vault: vault)
        try site.set("two", forKey: "erin")
        let store = try git(w, "store", "protocol=https\nhost=github.com\nusername=erin\npassword=three\n\n")
        #expect(store.status == 0, "\(store.stderr)")
        try w.set("four", ["--server", "github.com", "--protocol", "https", "--account", "erin"])
        let list = try w.run(["list", "--json", "--password-file", "pw", "v.vault"])
        let items = try #require(try list.json()["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["server"] as? String == "github.com")
        #expect(items.first?["authenticationType"] as? String == "default")
        #expect(try site.string(forKey: "erin") == "four")
    }

    @Test func olderSpellings_stayReadable_andAWriteRewritesThem() throws {
        // What writers stored before L-KC-15: an empty authentication type and a host's case.
        let w = try Workspace()
        try w.makeVault()
        let vault = try appVault(w)
        var old = ItemAttributes(account: "frank")
        (old.server, old.protocol, old.authenticationType) = ("GitHub.com", "https", "")
        try vault.write { txn in
            try txn.set(
                ItemDraft(
                    id: ItemID(random: SystemRandom()),
                    itemClass: .internetPassword,
                    attributes: old,
                    secret: SecretBytes(bytes: Array("old-spelling".utf8))
                )
            )
        }
        let site = try Keychain(server: #require(URL(string: "https://github.com")), vault: vault)
        #expect(try site.string(forKey: "frank") == "old-spelling")
        #expect(try git(w, "get", "protocol=https\nhost=github.com\n\n").stdout.contains("password=old-spelling"))
        try site.set("rewritten", forKey: "frank")
        let items = try vault.read { snapshot in
            try (0..<(try snapshot.index.count)).map { try snapshot.attributes(at: $0) }
        }
        #expect(items.count == 1)
        #expect(items.first?.server == "github.com")
        #expect(items.first?.authenticationType == "default")
    }

    /// An old vaulttool item (empty authentication type) beside the app's canonical one.
    private func bugPair(_ w: Workspace) throws -> Vault {
        try w.makeVault()
        let vault = try appVault(w)
        var old = ItemAttributes(account: "gina")
        (old.server, old.protocol, old.authenticationType) = ("github.com", "https", "")
        old.modificationDate = 1_000
        var canonical = old
        canonical.authenticationType = "default"  // as the app wrote it (a write today would rewrite `old`)
        try vault.write { txn in
            for (attributes, secret) in [(old, "REVOKED"), (canonical, "current")] {
                try txn.set(
                    ItemDraft(
                        id: ItemID(random: SystemRandom()),
                        itemClass: .internetPassword,
                        attributes: attributes,
                        secret: SecretBytes(bytes: Array(secret.utf8))
                    )
                )
            }
        }
        return vault
    }

    @Test func twoSpellingsOfOneItem_getTakesTheCanonical_andRmRemovesBoth() throws {
        let w = try Workspace()
        _ = try bugPair(w)
        let selection = ["--server", "github.com", "--protocol", "https", "--account", "gina", "v.vault"]
        let get = try w.run(["get", "--password-file", "pw"] + selection)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == "current")
        let rm = try w.run(["rm", "--password-file", "pw"] + selection)
        #expect(rm.status == 0, "\(rm.stderr)")
        #expect(rm.stdout == "Removed 2 items.\n")
        let again = try w.run(["get", "--password-file", "pw"] + selection)
        #expect(again.status == 2)
    }

    @Test func verify_namesTheStaleSpelling_andStillPasses() throws {
        let w = try Workspace()
        let vault = try bugPair(w)
        let ids = try vault.read { snapshot in try snapshot.itemsSpelledSeveralWays() }
        #expect(ids.count == 1 && ids.first?.count == 2)
        let verify = try w.run(["verify", "--password-file", "pw", "v.vault"])
        #expect(verify.status == 0, "\(verify.stderr)")
        let (current, stale) = try (#require(ids.first?.first), #require(ids.first?.last))
        #expect(
            String(
                decoding: try #require(
                    try vault.read { try $0.item(matching: ItemQuery(id: current.entry.itemID), includeSecret: true) }
                        .secret?.copyBytes()
                ),
                as: UTF8.self
            ) == "current"
        )
        #expect(
            verify.stderr.contains(
                "Warning: items \(current.entry.itemID) and \(stale.entry.itemID) are one internet password"
            )
        )
        let clean = try Workspace()
        try clean.makeVault()
        try clean.set("x", ["--server", "github.com", "--account", "a"])
        #expect(try clean.run(["verify", "--password-file", "pw", "v.vault"]).stderr.isEmpty)
    }

    @Test func aLibraryRemove_leavesNoOlderCopyToAnswer() throws {
        let w = try Workspace()
        let vault = try bugPair(w)
        let site = try Keychain(server: #require(URL(string: "https://github.com")), vault: vault)
        #expect(try site.remove("gina"))
        #expect(try site.string(forKey: "gina") == nil)
        let fromGit = try git(w, "get", "protocol=https\nhost=github.com\nusername=gina\n\n")
        #expect(fromGit.stdout == "")
    }

    @Test func anIPv6Host_isOneItem_forTheLibraryAndGit_andABadServerURLIsRefused() throws {
        let w = try Workspace()
        try w.makeVault()
        let store = try git(w, "store", "protocol=https\nhost=[::1]:8443\nusername=hal\npassword=v6\n\n")
        #expect(store.status == 0, "\(store.stderr)")
        let site = try Keychain(server: #require(URL(string: "https://[::1]:8443")), vault: try appVault(w))
        #expect(try site.string(forKey: "hal") == "v6")
        for server in ["https://", "https://h:99999"] {
            let set = try w.run(
                ["set", "--password-file", "pw", "--server", server, "--account", "x", "v.vault"],
                stdin: "s"
            )
            #expect(set.status == 64, "\(server): \(set.stderr)")
        }
    }

    @Test func aServerURL_namesOneItem_notEveryPortAndPathOfTheHost() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("staging", ["--server", "https://ci.example.com:8443/staging", "--account", "deploy"])
        try w.set("root", ["--server", "https://ci.example.com/", "--account", "deploy"])
        let rm = try w.run([
            "rm", "--password-file", "pw", "--server", "https://ci.example.com/", "--account", "deploy", "v.vault",
        ])
        #expect(rm.stdout == "Removed 1 item.\n", "\(rm.stderr)")
        let left = try w.run([
            "get", "--password-file", "pw", "--server", "https://ci.example.com:8443/staging", "v.vault",
        ])
        #expect(left.stdout == "staging")
    }
}
