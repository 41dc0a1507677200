// vault: the lookups `vaulttool rm` and `get` build on: every spelling of an item, and whether a
// missing device secret hides items.

import Testing
import VaultFormat
import VaultIO

@Suite("VaultSnapshot lookups")
struct VaultSnapshotLookupTests {
    @Test func spellings_ofAnInternetPassword_includeOlderWritersCopies() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            var old = ItemAttributes(account: "gina")
            (old.server, old.protocol, old.authenticationType) = ("github.com", "https", "")
            var canonical = old
            canonical.authenticationType = "default"
            var otherAccount = canonical
            otherAccount.account = "hank"
            var otherPath = canonical  // matches the query, but is another item
            otherPath.path = "/other"
            try vault.write { txn in
                for attributes in [old, canonical, otherAccount, otherPath] {
                    try txn.set(
                        ItemDraft(
                            id: ItemID(random: SystemRandom()),
                            itemClass: .internetPassword,
                            attributes: attributes,
                            secret: SecretBytes(bytes: Array("s".utf8))
                        )
                    )
                }
            }
            let all = try vault.read { snapshot in
                let item = try snapshot.item(
                    matching: ItemQuery(account: "gina", server: "github.com", protocol: "https", path: ""),
                    includeSecret: false
                )
                return try snapshot.spellings(of: item, matching: ItemQuery(account: "gina"))
            }
            #expect(all.count == 2)
            #expect(Set(all.map(\.attributes.authenticationType)) == ["", "default"])
            #expect(all.allSatisfy { $0.attributes.path == canonical.path })
        }
    }

    @Test func spellings_ofAGenericPassword_isTheItemAlone() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { txn in
                try txn.upsert(
                    .genericPassword,
                    identity: ItemAttributes(service: "db", account: "app"),
                    secret: SecretBytes(bytes: [1])
                )
            }
            let query = ItemQuery(service: "db")
            let all = try vault.read { snapshot in
                try snapshot.spellings(of: try snapshot.item(matching: query, includeSecret: false), matching: query)
            }
            #expect(all.map(\.attributes.account) == ["app"])
        }
    }

    @Test func lacksDeviceSecretForItems_onlyWithDeviceBoundItemsAndNoSecret() throws {
        try withTemporaryDirectory { directory in
            let secret = makeDeviceSecretFile(in: directory)
            let vault = try Vault.create(
                at: directory + "/d.vault",
                credentials: .password(testPassword),
                keyslots: [.password, .device],
                configuration: deviceConfiguration(secret)
            )
            #expect(try vault.read { try $0.lacksDeviceSecretForItems } == false)
            try Keychain(service: "s", vault: vault).accessibility(.whenUnlockedThisDeviceOnly).set("v", forKey: "k")
            #expect(try vault.read { try $0.lacksDeviceSecretForItems } == false, "this vault holds the secret")
            let elsewhere = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            #expect(try elsewhere.read { try $0.lacksDeviceSecretForItems })
        }
    }
}
