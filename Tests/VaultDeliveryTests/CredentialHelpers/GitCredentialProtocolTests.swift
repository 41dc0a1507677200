// VaultDelivery tests: git's get, store and erase over a store.

import Testing
import VaultDelivery
import VaultIO

@Suite("GitCredentialProtocol")
struct GitCredentialProtocolTests {
    private func run(_ store: MemoryHelperStore, _ action: String, _ request: String) throws -> String {
        String(decoding: try GitCredentialProtocol(store: store).run(action, input: Array(request.utf8)), as: UTF8.self)
    }

    @Test func storeThenGet_answersUsernameAndPassword() throws {
        let store = MemoryHelperStore()
        _ = try run(store, "store", "protocol=https\nhost=example.com\nusername=bot\npassword=s3cr3t\n")
        #expect(try run(store, "get", "protocol=https\nhost=example.com\n") == "username=bot\npassword=s3cr3t\n")
    }

    @Test func store_withoutPassword_isIgnored() throws {
        let store = MemoryHelperStore()
        _ = try run(store, "store", "protocol=https\nhost=example.com\nusername=bot\n")
        #expect(store.items.isEmpty)
    }

    @Test func get_skipsASecretGitCannotCarry() throws {
        let store = MemoryHelperStore()
        _ = try run(store, "store", "protocol=https\nhost=example.com\nusername=old\npassword=ok\n")
        var a = ItemAttributes(account: "new")
        a.server = "example.com"
        a.protocol = "https"
        store.items.append(CredentialHelperItem(attributes: a, secret: SecretBytes(bytes: Array("two\nlines".utf8))))
        #expect(try run(store, "get", "protocol=https\nhost=example.com\n") == "username=old\npassword=ok\n")
    }

    @Test func erase_onlyWithTheGivenPassword() throws {
        let store = MemoryHelperStore()
        _ = try run(store, "store", "protocol=https\nhost=example.com\nusername=bot\npassword=s3cr3t\n")
        _ = try run(store, "erase", "protocol=https\nhost=example.com\npassword=other\n")
        #expect(store.items.count == 1)
        _ = try run(store, "erase", "protocol=https\nhost=example.com\npassword=s3cr3t\n")
        #expect(store.items.isEmpty)
    }
}
