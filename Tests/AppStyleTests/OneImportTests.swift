// vault: every type an app names reaches it through `import VaultIO` alone.
//
// The README sample above could compile without VaultFormat's names in scope (implicit
// members such as `.password(…)` do not need the type's name), so this file names each
// app-facing VaultFormat type explicitly. It fails to compile when VaultIO stops
// re-exporting them.

import Testing
import VaultIO

@Suite("One import")
struct OneImportTests {
    @Test func vaultFormatTypes_areNamedWithVaultIOAlone() throws {
        try withTemporaryDirectory { directory in
            let kdf: KDFParameters = KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1)
            let credentials: Credentials = Credentials.password("correct horse")
            let vault = try Vault.create(
                at: directory + "/app.vault",
                credentials: credentials,
                configuration: .insecureForTesting(kdf: kdf)
            )
            let generated: String = try PasswordGenerator(.grouped).generate()
            var attributes = ItemAttributes(service: "com.example", account: "alice")
            attributes.label = "Example"
            let id: ItemID = ItemID(random: SystemRandom())
            let draft = ItemDraft(
                id: id,
                itemClass: ItemClass.genericPassword,
                protectionClass: ProtectionClass.afterFirstUnlock,
                attributes: attributes,
                secret: SecretBytes(utf8: generated)
            )
            try vault.write { txn in try txn.set(draft) }
            let key: PrimaryKey = PrimaryKey(itemClass: .genericPassword, attributes: attributes)
            let read = try vault.read { snapshot in
                try snapshot.position(of: key).map {
                    String(decoding: try snapshot.secret(at: $0).copyBytes(), as: UTF8.self)
                }
            }
            #expect(read == generated)
            // The same item through the Keychain API.
            #expect(try Keychain(service: "com.example", vault: vault).string(forKey: "alice") == generated)
            #expect(
                try Keychain(service: "com.example", vault: vault).attributes(forKey: "alice")?.persistentReference
                    == id
            )
        }
    }

    @Test func formatErrors_areCaughtByTypeWithVaultIOAlone() throws {
        try withTemporaryDirectory { directory in
            _ = try Vault.create(
                at: directory + "/app.vault",
                credentials: .password("right"),
                configuration: .insecureForTesting()
            )
            #expect(throws: VaultFormatError.self) {
                try Vault(path: directory + "/app.vault", credentials: .password("wrong"))
            }
        }
    }
}

@Suite("App-style target")
struct AppStyleTargetTests {
    /// This target stands for an app outside the package: it may not reach past VaultIO's public API.
    @Test func importsNoOtherModuleOfThePackage_andNoSPI() throws {
        let directory = packageRoot() + "/Tests/AppStyleTests"
        let files = try FileManagerShim.swiftFiles(in: directory)
        #expect(files.count >= 4)
        for file in files {
            let lines = try packageFile("Tests/AppStyleTests/" + file).split(separator: "\n")
            let imports = lines.filter { $0.hasPrefix("import ") || $0.hasPrefix("@") && $0.contains("import ") }
            for line in imports {
                #expect(
                    ["import VaultIO", "import Testing", "import Foundation"].contains(String(line)),
                    "\(file): \(line)"
                )
            }
        }
    }
}
