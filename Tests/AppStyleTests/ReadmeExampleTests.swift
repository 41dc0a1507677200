// vault: the README's library example, compiled and run the way an app outside this package would.
//
// This target depends on VaultIO only and imports nothing else of this package: every name
// below must reach an app through `import VaultIO`.

import Testing
import VaultIO

/// The README's "The library" sample, verbatim. It is compiled, never called: it writes to the
/// user's standard vault and to `/srv`. ``readmeExample_runs`` runs the same calls in a temporary
/// directory.
func readmeLibraryExample(passphrase: String, dbPassword: String) throws {
    // BEGIN README library
    let keychain = try Keychain.standard  // per-user vault, unlocked by this machine's device secret
    try keychain.set("s3cr3t", forKey: "api-token")
    let token: String? = try keychain.get("api-token")  // nil when missing
    keychain["refresh"] = "r1"  // subscripts; nil deletes
    try keychain.set(42, forKey: "launches")  // Int, Bool, Double, Date, any Codable

    let vault = try Vault.create(at: "/srv/app/secrets.vault", credentials: .password(passphrase))
    let db = Keychain(service: "db", vault: vault).accessibility(.whenUnlocked)
    try db.set(dbPassword, forKey: "app")
    // END README library
    _ = token
}

@Suite("README, as an app")
struct ReadmeExampleTests {
    @Test func readmeExample_runs() throws {
        try withTemporaryDirectory { directory in
            // `Keychain.standard`, in a directory of the test's own.
            let keychain = Keychain(vault: try Vault.standard(directory: directory + "/standard"))
            try keychain.set("s3cr3t", forKey: "api-token")
            let token: String? = try keychain.get("api-token")
            #expect(token == "s3cr3t")
            keychain["refresh"] = "r1"
            #expect(keychain["refresh"] == "r1")
            try keychain.set(42, forKey: "launches")
            #expect(try keychain.get("launches", as: Int.self) == 42)

            let vault = try Vault.create(
                at: directory + "/secrets.vault",
                credentials: .password("correct horse"),
                configuration: .insecureForTesting()
            )
            let db = Keychain(service: "db", vault: vault).accessibility(.whenUnlocked)
            try db.set("hunter2", forKey: "app")
            #expect(try db.string(forKey: "app") == "hunter2")
            #expect(try db.attributes(forKey: "app")?.accessibility == .whenUnlocked)
        }
    }

    /// The README sample in the file is the one compiled above, so that editing one without the other fails.
    @Test func readmeSample_matchesTheCompiledCopy() throws {
        let readme = try packageFile("README.md")
        let source = try packageFile("Tests/AppStyleTests/ReadmeExampleTests.swift")
        let compiled = try #require(section(of: source, from: "// BEGIN README library", to: "// END README library"))
        let documented = try #require(section(of: readme, from: "```swift\nimport VaultIO\n", to: "```"))
        #expect(normalized(documented) == normalized(compiled))
    }
}
