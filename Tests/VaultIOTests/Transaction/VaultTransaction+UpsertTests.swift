// VaultIO tests: VaultTransaction.upsert, the one upsert every writer uses (L-KC-15, L-KC-3).

import Testing
import VaultFormat
import VaultIO

private func secret(_ text: String) -> SecretBytes { SecretBytes(bytes: Array(text.utf8)) }

@Suite("VaultTransaction.upsert")
struct UpsertTests {
    @Test func aNewItem_getsCanonicalKeyAndDates_andASecondUpsertKeepsItsIDAndCreation() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            var key = ItemAttributes(account: "alice")
            key.server = "HTTPS://GitHub.com/"
            let first = try vault.write { txn in
                try txn.upsert(.internetPassword, identity: key, secret: secret("one")) { $0.label = "GitHub" }
            }
            guard case .added(let id) = first else {
                Issue.record("expected an added item, got \(first)")
                return
            }
            let created = try vault.read { try $0.attributes(at: 0) }
            #expect(
                (created.server, created.protocol, created.authenticationType) == ("github.com", "https", "default")
            )
            #expect(created.label == "GitHub")
            #expect(created.creationDate > 0)
            var other = ItemAttributes(account: "alice")
            (other.server, other.protocol) = ("github.com", "https")
            let second = try vault.write { txn in
                try txn.upsert(.internetPassword, identity: other, secret: secret("two"))
            }
            #expect(second == .updated(id))
            let updated = try vault.read { try $0.attributes(at: 0) }
            #expect(updated.creationDate == created.creationDate)
            #expect(updated.label == "GitHub")  // kept: describe did not set it
            #expect(try vault.read { try $0.secret(at: 0).copyBytes() } == Array("two".utf8))
        }
    }

    @Test func skipIfSecretUnchanged_writesNothing() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let key = ItemAttributes(service: "svc", account: "alice")
            try vault.write { txn in try txn.upsert(.genericPassword, identity: key, secret: secret("same")) }
            let generation = try vault.read { $0.header.generation }
            let result = try vault.write { txn in
                try txn.upsert(.genericPassword, identity: key, secret: secret("same"), skipIfSecretUnchanged: true)
            }
            #expect(result == .unchanged(result.id))
            #expect(try vault.read { $0.header.generation } == generation)
        }
    }

    @Test func describe_cannotChangeTheIdentity_andItsErrorWritesNothing() throws {
        struct Refused: Error {}
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let key = ItemAttributes(service: "svc", account: "alice")
            try vault.write { txn in
                try txn.upsert(.genericPassword, identity: key, secret: secret("s")) { $0.service = "elsewhere" }
            }
            #expect(try vault.read { try $0.attributes(at: 0).service } == "svc")
            #expect(throws: Refused.self) {
                try vault.write { txn in
                    try txn.upsert(.genericPassword, identity: key, secret: secret("t")) { _ in throw Refused() }
                }
            }
            #expect(try vault.read { try $0.secret(at: 0).copyBytes() } == Array("s".utf8))
        }
    }
}
