// vault: removing a recipient limited to one access group always rekeys (R2-RCP-5).

import Testing
import VaultFormat
import VaultIO

@Suite("Removing a limited recipient")
struct LimitedRecipientRemovalTests {
    /// R2-RCP-5: the removed `deploy` runner knows HK, IK, LK and GK(d); without a rekey it would
    /// keep reading every `deploy` item written afterwards. The transaction refuses a removal
    /// without a rekey, and nothing is written.
    @Test func removeLimitedRecipient_withoutRekey_isRefused() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let runner = RecipientIdentity.generate()
            try vault.write { txn in
                try txn.upgradeToVersion2()
                var draft = makeDraft(service: "deploy-db", secret: "d")
                draft.attributes.accessGroup = "deploy"
                try txn.set(draft)
                try txn.addRecipient(runner.recipient, name: "ci", limitedTo: "deploy")
            }
            #expect(throws: VaultFormatError(.invalidParameter)) {
                try vault.write { _ = try $0.removeRecipient(runner.recipient, rekey: nil) }
            }
            #expect(try vault.read { try $0.recipients() }.count == 1)
            // With the rekey (the default) it goes.
            try vault.write {
                _ = try $0.removeRecipient(
                    runner.recipient,
                    rekey: RekeyOptions(credentials: [.password(testPassword)])
                )
            }
            #expect(try vault.read { try $0.recipients() }.isEmpty)
        }
    }
}
