// vault: an ItemQuery's identity is the item a lookup with it finds, whoever stores it.

import Testing
import VaultFormat
import VaultIO

@Suite("ItemQuery")
struct ItemQueryTests {
    @Test func identity_takesTheFieldsSet_andLeavesTheOthersEmpty() {
        let query = ItemQuery(service: "db", account: "app", label: "not identity", itemClass: .genericPassword)
        let identity = query.identity
        #expect(identity.service == "db" && identity.account == "app")
        #expect(identity.accessGroup.isEmpty && identity.server.isEmpty && identity.port == 0)
        #expect(identity.label.isEmpty, "the label names no item")
    }

    @Test func identity_ofACanonicalQuery_isFoundByThatQuery() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let query = ItemQuery(account: "ci", server: "https://GitHub.com:8443/org").canonicalized()
            try vault.write { txn in
                try txn.upsert(
                    .internetPassword,
                    identity: query.identity,
                    secret: SecretBytes(bytes: Array("token".utf8))
                )
            }
            let found = try vault.read { try $0.item(matching: query, includeSecret: true) }
            #expect(found.secret?.copyBytes() == Array("token".utf8))
            #expect(found.attributes.server == "github.com" && found.attributes.port == 8443)
        }
    }
}
