// Spec/secret-service.md §6: where a client's attributes live and which vault item they name.

import Testing
import VaultIO

@testable import VaultSecretService

@Suite struct SecretAttributesTests {
    @Test func mapsRoundTripThroughTag64() {
        let map = ["xdg:schema": "org.example.Thing", "b": "", "a": "x=y&z", "é": "line\nbreak"]
        #expect(SecretAttributes.decode(SecretAttributes.encode(map)) == map)
        #expect(SecretAttributes.decode(SecretAttributes.encode([:])) == [:])
    }

    @Test(arguments: [[UInt8]([5, 0x61]), [1, 0x61], [0x80], [1, 0x62, 0, 1, 0x61, 0], [0, 0]])
    func malformedTag64ValuesDoNotDecode(_ value: [UInt8]) {
        #expect(SecretAttributes.decode(value) == nil)
    }

    @Test func storedMapWinsOverFields() {
        var a = ItemAttributes(service: "svc", account: "u")
        let map = ["service": "svc", "username": "u", "application": "Python keyring library"]
        a.preserved = [PreservedAttribute(tag: 64, value: SecretAttributes.encode(map))]
        #expect(SecretAttributes.map(of: a, itemClass: .genericPassword) == map)
    }

    @Test func itemsWithoutAMapShowTheirFields() {
        #expect(
            SecretAttributes.map(of: ItemAttributes(service: "svc", account: "u"), itemClass: .genericPassword)
                == ["xdg:schema": "org.freedesktop.Secret.Generic", "service": "svc", "account": "u", "username": "u"]
        )
        var net = ItemAttributes(account: "carol")
        (net.server, net.protocol, net.port, net.path) = ("example.com", "https", 8443, "/repo.git")
        #expect(
            SecretAttributes.map(of: net, itemClass: .internetPassword)
                == [
                    "xdg:schema": "org.gnome.keyring.NetworkPassword", "server": "example.com", "user": "carol",
                    "protocol": "https", "port": "8443", "object": "repo.git",
                ]
        )
    }

    @Test func gitsLibsecretHelperNamesTheItemVaultsGitHelperWrites() throws {
        let (itemClass, a) = try SecretAttributes.identity(of: [
            "xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "carol", "protocol": "https",
            "server": "GitHub.com.", "object": "org/repo.git",
        ])
        #expect(itemClass == .internetPassword)
        #expect(
            (a.account, a.server, a.protocol, a.port, a.path) == ("carol", "github.com", "https", 0, "/org/repo.git")
        )
    }

    @Test func pythonKeyringAndSecretToolNameOneItem() throws {
        let keyring = try SecretAttributes.identity(of: [
            "service": "svc", "username": "u", "application": "Python keyring library",
        ])
        let tool = try SecretAttributes.identity(of: ["service": "svc", "account": "u"])
        #expect(keyring.0 == .genericPassword && tool.0 == .genericPassword)
        #expect(keyring.1.service == "svc" && keyring.1.account == "u")
        #expect(
            PrimaryKey(itemClass: .genericPassword, attributes: keyring.1)
                == PrimaryKey(itemClass: .genericPassword, attributes: tool.1)
        )
    }

    @Test func otherMapsKeepEveryEntryInTheirIdentity() throws {
        let envchain = try SecretAttributes.identity(of: ["name": "aws", "key": "A=B&C%"])
        #expect(envchain.1.service == "org.freedesktop.Secret.Generic")
        #expect(envchain.1.account == "?key=A%3DB%26C%25&name=aws")
        let other = try SecretAttributes.identity(of: ["name": "aws", "key": "OTHER"])
        #expect(other.1.account != envchain.1.account)
    }

    @Test func browsersSharingASchemaKeepTheirOwnKeys() throws {
        let schema = "chrome_libsecret_os_crypt_password_v2"
        let chrome = try SecretAttributes.identity(of: ["xdg:schema": schema, "application": "chrome"])
        let brave = try SecretAttributes.identity(of: ["xdg:schema": schema, "application": "brave"])
        #expect(chrome.1.service == schema && chrome.1.account == "?application=chrome")
        #expect(
            PrimaryKey(itemClass: chrome.0, attributes: chrome.1) != PrimaryKey(itemClass: brave.0, attributes: brave.1)
        )
    }

    @Test func aSchemaMapNeverNamesAServiceAccountItem() throws {
        let schemaMap = try SecretAttributes.identity(of: ["xdg:schema": "myapp", "id": "1"])
        let generic = try SecretAttributes.identity(of: ["service": "myapp", "account": "id=1"])
        #expect(schemaMap.1.service == generic.1.service)
        #expect(schemaMap.1.account == "?id=1" && generic.1.account == "id=1")
        // An account that itself begins with `?` is left to R-SS-22, so it cannot be another map's key.
        let questioned = try SecretAttributes.identity(of: ["service": "myapp", "account": "?id=1"])
        #expect(questioned.1.service == "org.freedesktop.Secret.Generic")
        #expect(questioned.1.account == "?account=?id%3D1&service=myapp")
        let empty = try SecretAttributes.identity(of: ["xdg:schema": "myapp"])
        let bare = try SecretAttributes.identity(of: ["service": "myapp"])
        #expect(empty.1.account == "?" && bare.1.account == "")
    }

    /// Found by an outside attack: Swift compares strings by canonical equivalence and iterates
    /// characters, so a combining mark (U+0301) could hide `=`, `&` or `?`, or make two spellings equal.
    @Test func combiningMarksNeitherHideSeparatorsNorJoinSpellings() throws {
        let split = try SecretAttributes.identity(of: ["xdg:schema": "app", "a": "1", "\u{301}b": "\u{301}2"])
        let packed = try SecretAttributes.identity(of: ["xdg:schema": "app", "a": "1&\u{301}b=\u{301}2"])
        #expect(!split.1.account.utf8.elementsEqual(packed.1.account.utf8))
        let schemaMap = try SecretAttributes.identity(of: ["xdg:schema": "app2", "\u{301}k": "v"])
        let generic = try SecretAttributes.identity(of: ["service": "app2", "account": "?\u{301}k=v"])
        #expect(
            PrimaryKey(itemClass: schemaMap.0, attributes: schemaMap.1)
                != PrimaryKey(itemClass: generic.0, attributes: generic.1)
        )
        let composed = ["service": "bank", "account": "caf\u{E9}"]
        #expect(!SecretAttributes.matches(composed, ["account": "cafe\u{301}"]))
        #expect(SecretAttributes.matches(composed, ["account": "caf\u{E9}"]))
        #expect(!SecretAttributes.same(composed, ["service": "bank", "account": "cafe\u{301}"]))
    }

    @Test func dockerMapsToTheDockerHelpersItem() throws {
        let (itemClass, a) = try SecretAttributes.identity(of: [
            "xdg:schema": "io.docker.Credentials", "server": "HTTPS://Registry.Example:5000/v2/", "username": "d",
            "docker_cli": "1",
        ])
        #expect(itemClass == .internetPassword)
        #expect(
            (a.accessGroup, a.protocol, a.server, a.port, a.path) == (
                "docker", "https", "registry.example", 5000, "/v2/"
            )
        )
    }

    @Test func aBadPortFallsBackToAGenericItem() throws {
        let (itemClass, a) = try SecretAttributes.identity(of: ["server": "h", "port": "08"])
        #expect(itemClass == .genericPassword && a.account == "?port=08&server=h")
    }

    @Test func searchIsSubsetEquality() {
        let map = ["a": "1", "b": "2"]
        #expect(SecretAttributes.matches(map, [:]))
        #expect(SecretAttributes.matches(map, ["a": "1"]))
        #expect(!SecretAttributes.matches(map, ["a": "2"]))
        #expect(!SecretAttributes.matches(map, ["c": ""]))
    }

    @Test func oversizedIdentitiesAreRefused() {
        #expect(throws: BusError.self) {
            try SecretAttributes.identity(of: ["x": String(repeating: "a", count: 5000)])
        }
    }
}
