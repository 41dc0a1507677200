// vault: the snippets of the DocC article "Migrating from KeychainAccess, SwiftKeychainWrapper and Valet",
// compiled and run as an app would. `URL` is Foundation's, so this file imports Foundation as an app would;
// every name of this package comes from `import VaultIO`.

import Foundation
import Testing
import VaultIO

/// The article, relative to the package root.
let migrationArticle = "Sources/VaultIO/Documentation.docc/MigratingFromOtherKeychains.md"

func migrating_keychainAccess(vault: Vault) throws {
    // BEGIN Migrating 1
    // let keychain = Keychain(service: "com.example.github-token")
    let keychain = Keychain(service: "com.example.github-token", vault: vault)

    // keychain["kishikawa"] = "01234567-89ab"
    keychain["kishikawa"] = "01234567-89ab"

    // try keychain.set("01234567-89ab", key: "kishikawa")
    try keychain.set("01234567-89ab", forKey: "kishikawa")

    // let token = try keychain.get("kishikawa")
    let token: String? = try keychain.get("kishikawa")

    // let attributes = try keychain.get("kishikawa") { $0 }   or   keychain[attributes: "kishikawa"]
    let attributes = try keychain.attributes(forKey: "kishikawa")
    let label: String? = attributes?.label  // nil when unset, as in KeychainAccess

    // keychain.accessibility(.afterFirstUnlock).synchronizable(true).label("GitHub").comment("token")
    let configured = keychain.accessibility(.afterFirstUnlock).synchronizable(true).label("GitHub").comment("token")
    try configured.attributeDescription("API token").creator("EXMP").set("abc", forKey: "ci")

    // let internet = Keychain(server: "https://github.com", protocolType: .https)
    let internet = Keychain(server: "github.com", protocol: .https, vault: vault)
    let fromURL = try Keychain(server: URL(string: "https://github.com")!, vault: vault)  // SwiftyKeychainKit's
    try internet.set("pat", forKey: "kishikawa")

    // let keys = keychain.allKeys();  let items = keychain.allItems()
    let keys = try keychain.allKeys()  // sorted by key
    let items = try keychain.allItems()  // in creation order

    // try keychain.remove("kishikawa")       (every access group, synchronizable or not)
    try keychain.remove("kishikawa", including: .keychainAccess)
    try configured.remove("ci")  // only this keychain's own item (here: the synchronizable one)

    // try keychain.removeAll()
    try keychain.removeAll()
    _ = (token, label, keys, items, fromURL)
    // END Migrating 1
}

func migrating_swiftKeychainWrapper(vault: Vault) throws {
    // BEGIN Migrating 2
    // KeychainWrapper.standard
    let wrapper = Keychain(service: "com.example.app", vault: vault)  // or: try Keychain.standard

    // let saved: Bool = KeychainWrapper.standard.set("value", forKey: "key")
    let saved = (try? wrapper.set("value", forKey: "key")) != nil

    // KeychainWrapper.standard.string(forKey: "key")
    let value = try wrapper.string(forKey: "key")

    // KeychainWrapper.standard.set(3, forKey: "count");  .integer(forKey: "count")
    try wrapper.set(3, forKey: "count")
    let count = try wrapper.get("count", as: Int.self)

    // KeychainWrapper.standard.set(true, forKey: "flag", withAccessibility: .afterFirstUnlock)
    try wrapper.accessibility(.afterFirstUnlock).set(true, forKey: "flag")

    // KeychainWrapper(serviceName: "com.example.app", accessGroup: "group.example")
    let shared = Keychain(service: "com.example.app", accessGroup: "group.example", vault: vault)

    // KeychainWrapper.standard.removeObject(forKey: "key");  .removeAllKeys()
    try wrapper.remove("key")
    try wrapper.removeAll()
    _ = (saved, value, count, shared)
    // END Migrating 2
}

func migrating_valet(vault: Vault) throws {
    // BEGIN Migrating 3
    // let valet = Valet.valet(with: Identifier(nonEmpty: "Druidia")!, accessibility: .whenUnlocked)
    let valet = Keychain(service: "Druidia", vault: vault).accessibility(.whenUnlocked)

    // try valet.setString("12345", forKey: "Combination")
    try valet.set("12345", forKey: "Combination")

    // let combination = try valet.string(forKey: "Combination")   (throws itemNotFound when missing)
    let combination = try valet.string(forKey: "Combination")  // nil when missing
    let required = try valet.require(Keychain.Key<String>("Combination"))  // throws itemNotFound

    // try valet.containsObject(forKey: "Combination");  try valet.allKeys()
    let present = try valet.contains("Combination")
    let valetKeys = try valet.allKeys()

    // try valet.migrateObjects(from: oldValet, removeOnCompletion: true)
    let oldValet = Keychain(service: "Druidia-old", vault: vault)
    let result = try valet.migrateItems(from: oldValet, removingFromSource: true)
    if result.foundNothing { print("nothing to migrate") }  // Valet throws itemNotFound here

    // try valet.removeObject(forKey: "Combination");  try valet.removeAllObjects()
    try valet.remove("Combination")
    try valet.removeAll()
    _ = (combination, required, present, valetKeys)
    // END Migrating 3
}

func migrating_valetSeparation(vault: Vault) throws {
    // BEGIN Migrating 4
    func valetStyle(_ accessibility: Keychain.Accessibility) -> Keychain {
        Keychain(service: "Druidia.\(accessibility)", vault: vault).accessibility(accessibility)
    }
    try valetStyle(.whenUnlocked).set("a", forKey: "k")
    try valetStyle(.afterFirstUnlock).set("b", forKey: "k")  // a second item
    // END Migrating 4
}

func migrating_readModifyWrite(keychain: Keychain) throws {
    // BEGIN Migrating 5
    try keychain.update("launches", as: Int.self) { ($0 ?? 0) + 1 }
    // END Migrating 5
}

@Suite("Migration article, as an app")
struct MigrationArticleTests {
    @Test func snippets_run() throws {
        try withTemporaryDirectory { directory in
            let vault = try Vault.create(
                at: directory + "/app.vault",
                credentials: .password("correct horse"),
                configuration: .insecureForTesting()
            )
            try migrating_keychainAccess(vault: vault)
            try migrating_swiftKeychainWrapper(vault: vault)
            try migrating_valet(vault: vault)
            try migrating_valetSeparation(vault: vault)
            let keychain = Keychain(service: "counter", vault: vault)
            try migrating_readModifyWrite(keychain: keychain)
            try migrating_readModifyWrite(keychain: keychain)
            #expect(try keychain.get("launches", as: Int.self) == 2)
            #expect(try Keychain(service: "Druidia.whenUnlocked", vault: vault).string(forKey: "k") == "a")
        }
    }

    @Test func article_matchesTheCompiledCopies() throws {
        try expectDocumentSamples(in: migrationArticle, match: "Migrating", compiledIn: "MigrationArticleTests.swift")
    }
}
