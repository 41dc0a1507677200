// vault: a transaction meets a record of domain 0 that claims an access group with a key domain
// (Spec/format-v2.md R2-GRP-6) as damage, as every read for a caller does.

import Foundation
import Testing
import VaultFormat
import VaultIO

@Suite("Transactions and R2-GRP-6")
struct UngroupedClaimTests {
    /// `deploy` has a key domain (a runner is limited to it); then a record of domain 0 that claims
    /// `deploy` is written into the file, as a holder of `BK` alone could (threat model §3.13.1).
    /// The transaction's reads, which `set`, `Keychain.update`, imports and the credential helpers
    /// go through, refuse it: before, they read it as a `deploy` item and a write sealed it into
    /// the group's domain, where it then read cleanly.
    @Test func transactionReads_refuseADomainZeroRecordClaimingAGroup() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { txn in
                try txn.upgradeToVersion2()
                var draft = makeDraft(service: "deploy-db", secret: "d")
                draft.attributes.accessGroup = "deploy"
                try txn.set(draft)
                try txn.addRecipient(RecipientIdentity.generate().recipient, name: "ci", limitedTo: "deploy")
            }
            var claim = ItemAttributes(service: "old-db", account: "alice")
            claim.accessGroup = "deploy"
            let forged = try forge(claim, into: vault.path)
            let key = PrimaryKey(itemClass: .genericPassword, attributes: claim)
            let reopened = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            try reopened.write { txn in
                do {
                    _ = try txn.item(for: key)
                    Issue.record("the forged record was read")
                } catch let damage as ItemDamage {
                    #expect(damage.error.code == .recordCorrupt && damage.entry.itemID == forged)
                }
                #expect(throws: VaultFormatError(.recordCorrupt)) { _ = try txn.attributes(for: forged) }
                #expect(throws: VaultFormatError(.recordCorrupt)) {
                    _ = try txn.setProtectionClass(.whenUnlocked, for: forged)
                }
                // The real deploy item still reads.
                var real = ItemAttributes(service: "deploy-db", account: "alice")
                real.accessGroup = "deploy"
                #expect(try txn.item(for: PrimaryKey(itemClass: .genericPassword, attributes: real)) != nil)
            }
        }
    }

    /// Writes, into the next generation of the file at `path`, an `always` record of domain 0
    /// with `attributes`, sealed with the owner's keys (any holder of `BK` seals the same bytes).
    func forge(_ attributes: ItemAttributes, into path: String) throws -> ItemID {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let snapshot = try VaultSnapshot.open(file, with: .password(testPassword))
        var writer = try VaultWriter(updating: snapshot)
        let record = try RecordCodec.seal(
            ItemDraft(
                id: ItemID(random: SystemRandom()),
                protectionClass: .always,
                attributes: attributes,
                secret: SecretBytes(utf8: "forged")
            ),
            version: writer.header.generation,
            vaultID: snapshot.header.vaultID,
            keys: writer.keys,
            domain: 0,
            random: SystemRandom()
        )
        try writer.insertRaw(record)
        try Data(writer.encode(now: 0)).write(to: URL(fileURLWithPath: path))
        return record.entry.itemID
    }
}
