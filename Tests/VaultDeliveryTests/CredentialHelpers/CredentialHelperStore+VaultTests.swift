// VaultDelivery tests: a credential-helper store's find, store and erase on a real vault.

import Glibc
import Testing
import VaultDelivery
import VaultIO

@Suite("CredentialHelperStore on a vault")
struct CredentialHelperStoreVaultTests {
    private func internet(_ server: String, _ account: String, protocol scheme: String = "https") -> ItemAttributes {
        var attributes = ItemAttributes(account: account)
        attributes.server = server
        attributes.protocol = scheme
        return attributes
    }

    private func store(_ scratch: ScratchVault, _ attributes: ItemAttributes, _ secret: String) throws -> Bool {
        try scratch.vault.write { txn in
            try txn.storeCredentialHelperItem(
                attributes,
                secret: SecretBytes(bytes: Array(secret.utf8)),
                replacing: nil
            )
        }
    }

    @Test func store_thenFindByExactKey_returnsTheItemWithItsSecret() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        #expect(try store(scratch, internet("example.com", "bot"), "s3cr3t"))
        let found = try scratch.snapshot().credentialHelperItems(
            withSecrets: true,
            exact: internet("example.com", "bot"),
            { _ in true }
        )
        #expect(found.count == 1)
        #expect(found.first?.attributes.account == "bot")
        #expect(found.first?.secret == SecretBytes(bytes: Array("s3cr3t".utf8)))
    }

    @Test func store_theSameSecretAgain_changesNothing() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        #expect(try store(scratch, internet("example.com", "bot"), "s3cr3t"))
        #expect(try !store(scratch, internet("example.com", "bot"), "s3cr3t"))
        #expect(try store(scratch, internet("example.com", "bot"), "rotated"))
    }

    @Test func store_keepsOneItemPerIdentity_whateverTheServersSpelling() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try store(scratch, internet("GitHub.com", "bot"), "one")
        _ = try store(scratch, internet("github.com", "bot"), "two")
        let found = try scratch.snapshot().credentialHelperItems(withSecrets: true, exact: nil) { _ in true }
        #expect(found.count == 1)
        #expect(found.first?.secret == SecretBytes(bytes: Array("two".utf8)))
    }

    @Test func store_replacing_removesTheOtherItemsItAccepts() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try store(scratch, internet("example.com", "old"), "a")
        _ = try store(scratch, internet("other.org", "kept"), "b")
        let changed = try scratch.vault.write { txn in
            try txn.storeCredentialHelperItem(
                internet("example.com", "new"),
                secret: SecretBytes(bytes: Array("c".utf8)),
                replacing: { $0.server == "example.com" }
            )
        }
        #expect(changed)
        let accounts = try scratch.snapshot().credentialHelperItems(withSecrets: false, exact: nil) { _ in true }
            .map(\.attributes.account).sorted()
        #expect(accounts == ["kept", "new"])
    }

    @Test func find_withAFilter_returnsNewestFirstWithoutSecrets() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try store(scratch, internet("example.com", "first"), "a")
        usleep(10_000)  // modification dates are in milliseconds: the second is newer
        _ = try store(scratch, internet("example.com", "second"), "b")
        _ = try store(scratch, internet("other.org", "elsewhere"), "c")
        let found = try scratch.snapshot().credentialHelperItems(withSecrets: false, exact: nil) {
            $0.server == "example.com"
        }
        #expect(found.map(\.attributes.account) == ["second", "first"])
        #expect(found.allSatisfy { $0.secret == nil })
    }

    @Test func find_exactKeyThatTheFilterRefuses_fallsBackToTheFilter() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try store(scratch, internet("example.com", "bot"), "a")
        let found = try scratch.snapshot().credentialHelperItems(
            withSecrets: false,
            exact: internet("example.com", "bot"),
            { $0.account == "nobody" }
        )
        #expect(found.isEmpty)
    }

    @Test func erase_onlyItemsHoldingTheSecretGiven() throws {
        let scratch = try ScratchVault()
        defer { scratch.remove() }
        _ = try store(scratch, internet("example.com", "bot"), "s3cr3t")
        _ = try store(scratch, internet("example.com", "ci"), "other")
        func erase(holding secret: String?) throws -> Int {
            try scratch.vault.write { txn in
                try txn.eraseCredentialHelperItems(
                    { _ in true },
                    ifSecretEquals: secret.map { SecretBytes(bytes: Array($0.utf8)) }
                )
            }
        }
        #expect(try erase(holding: "nope") == 0)
        #expect(try erase(holding: "s3cr3t") == 1)
        #expect(try erase(holding: nil) == 1)
        #expect(try scratch.snapshot().credentialHelperItems(withSecrets: false, exact: nil) { _ in true }.isEmpty)
    }
}
