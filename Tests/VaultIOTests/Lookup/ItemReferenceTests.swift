// vault: references (`vault://db/app`) parse to the query `vaulttool get` would use, and resolve alike.

import Testing
import VaultFormat
import VaultIO

@Suite("Item references")
struct ItemReferenceTests {
    @Test func aGenericReference_namesServiceAndAccount_percentDecoded() throws {
        let reference = try ItemReference(parsing: "vault://my%2Fdb/app%20user?group=backend")
        #expect(
            reference.query
                == ItemQuery(service: "my/db", account: "app user", accessGroup: "backend", itemClass: .genericPassword)
        )
        #expect(reference.expectedAccessibility == nil)
        #expect(reference.description == "vault://my%2Fdb/app%20user?group=backend")
        #expect(try ItemReference(parsing: "vault://db").query.account == nil)
        #expect(try ItemReference(parsing: "vault://db/").query.account == "")
        #expect(try ItemReference(parsing: "vault://caf%C3%A9/a").query.service == "café")
    }

    @Test func anInternetReference_namesPortAndPathExactly_andLowercasesTheHost() throws {
        let plain = try ItemReference(parsing: "vault+HTTPS://alice@GitHub.com")
        #expect(
            plain.query
                == ItemQuery(
                    account: "alice",
                    server: "github.com",
                    protocol: "https",
                    port: 0,
                    path: "",
                    itemClass: .internetPassword
                )
        )
        let full = try ItemReference(
            parsing: "vault+https://ci%40corp@[::1]:8443/api/v1?authentication-type=httpBasic&security-domain=r"
        )
        #expect(full.query.account == "ci@corp")
        #expect(full.query.server == "[::1]")
        #expect(full.query.port == 8443)
        #expect(full.query.path == "/api/v1")
        #expect(full.query.authenticationType == "httpBasic")
        #expect(full.query.securityDomain == "r")
        let anyProtocol = try ItemReference(parsing: "vault+internet://github.com/")
        #expect(anyProtocol.query.protocol == nil && anyProtocol.query.account == nil && anyProtocol.query.path == "")
    }

    @Test(arguments: [
        ("db/app", "starts with"),
        ("vault://", "service is empty"),
        ("vault://db/a/b", "%2F"),
        ("vault://db/a#frag", "fragment"),
        ("vault://db/a b", "percent-encoded"),
        ("vault://db/%zz", "two hexadecimal digits"),
        ("vault://db/%ff", "not UTF-8"),
        ("vault://db/a?group=x&group=y", "given twice"),
        ("vault://db/a?grp=x", "not a parameter"),
        ("vault://db/a?security-domain=x", "not a parameter"),
        ("vault://db/a?accessibility=sometimes", "not a protection class"),
        ("vault://db/a?group", "has no '='"),
        ("vault+1x://host", "not a URL scheme"),
        ("vault+https://host:0", "port"),
        ("vault+https://host:99999", "port"),
        ("vault+https://[::1", "closing ']'"),
        ("vault+https://alice@", "host is empty"),
        ("vault+https://carol@[::1]x", "followed by ':port' or nothing"),
        ("vault+https://u@[]", "host is empty"),
        ("vault+https://h:1:2", "IPv6 host is written in brackets"),
        ("vault+https://::1", "IPv6 host is written in brackets"),
        ("vault+https://h:08443", "port"),
        ("vault+https://h:+8443", "port"),
        ("vault://db/app?", "no parameter"),
    ])
    func aMalformedReference_isRefusedWithItsReason(_ text: String, _ reason: String) {
        #expect {
            try ItemReference(parsing: text)
        } throws: { error in
            let error = error as? VaultIOError
            return error?.code == .invalidReference && error?.reason.contains(reason) == true
        }
    }

    @Test func theScheme_comparesWithoutCase_andTheRestDoesNot() throws {
        #expect(try ItemReference(parsing: "VAULT://db/App").query == ItemReference(parsing: "vault://db/App").query)
        #expect(try ItemReference(parsing: "Vault+HTTPS://u@h").query.protocol == "https")
        #expect(try ItemReference(parsing: "vault://DB/app").query.service == "DB")
        #expect(ItemReference.isReference("VAULT://x") && ItemReference.isReference("vAuLt+https://h"))
    }

    @Test func isReference_takesEveryVaultPrefix_soAMalformedOneIsNeverALiteral() {
        #expect(ItemReference.isReference("vault://x/y"))
        #expect(ItemReference.isReference("vault+https://h"))
        #expect(ItemReference.isReference("vault+"))
        #expect(!ItemReference.isReference("vaultx://y"))
        #expect(!ItemReference.isReference("postgres://u@h/db"))
    }

    @Test func aReference_resolvesToTheItemGetWouldSelect() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { txn in
                try txn.set(makeDraft(service: "db", account: "app", secret: "default-group"))
                var grouped = makeDraft(service: "db", account: "app", secret: "backend-group")
                grouped.attributes.accessGroup = "backend"
                try txn.set(grouped)
                try txn.set(makeDraft(service: "solo", account: "only", secret: "the one"))
                var web = makeDraft(service: "", account: "alice", secret: "token")
                web.itemClass = .internetPassword
                web.attributes.server = "github.com"
                web.attributes.protocol = "https"
                try txn.set(web)
            }
            func resolve(_ text: String) throws -> String {
                String(decoding: try vault.secret(for: ItemReference(parsing: text)).copyBytes(), as: UTF8.self)
            }
            #expect(try resolve("vault://db/app") == "default-group")
            #expect(try resolve("vault://db/app?group=backend") == "backend-group")
            #expect(try resolve("vault://solo") == "the one")
            #expect(try resolve("vault+https://alice@GITHUB.com/") == "token")
            #expect(try resolve("vault+internet://alice@github.com") == "token")
            #expect(throws: VaultIOError(.itemNotFound)) { try resolve("vault+http://alice@github.com") }
            #expect(throws: VaultIOError(.itemNotFound)) { try resolve("vault://db/nobody") }
            #expect(throws: VaultIOError(.itemNotFound)) { try resolve("vault+https://alice@github.com:443") }
            // Two different items match "any account of db" only in the default group: still one.
            #expect(try resolve("vault://db") == "default-group")
            #expect(throws: VaultIOError(.accessibilityMismatch)) {
                try resolve("vault://db/app?accessibility=always")
            }
            #expect(try resolve("vault://db/app?accessibility=whenUnlocked") == "default-group")
        }
    }

    @Test func severalItems_areAmbiguous_andTheErrorCountsThem() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            try vault.write { txn in
                try txn.set(makeDraft(service: "db", account: "a"))
                try txn.set(makeDraft(service: "db", account: "b"))
            }
            #expect {
                try vault.secret(for: ItemReference(parsing: "vault://db"))
            } throws: { error in
                (error as? VaultIOError)?.code == .ambiguousItem && (error as? VaultIOError)?.reason == "2 items match"
            }
        }
    }
}
