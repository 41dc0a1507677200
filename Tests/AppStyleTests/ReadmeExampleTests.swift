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
    // BEGIN README 1
    let keychain = try Keychain.standard  // per-user vault, unlocked by this machine's device secret
    try keychain.set("s3cr3t", forKey: "api-token")
    let token: String? = try keychain.get("api-token")  // nil when missing
    keychain["refresh"] = "r1"  // subscripts; nil deletes
    try keychain.set(42, forKey: "launches")  // Int, Bool, Double, Date, any Codable

    let vault = try Vault.create(at: "/srv/app/secrets.vault", credentials: .password(passphrase))
    let db = Keychain(service: "db", vault: vault).accessibility(.whenUnlocked)
    try db.set(dbPassword, forKey: "app")
    // END README 1
    _ = token
}

/// The README's "Testing an app that uses vault" sample, run by ``readmeTestingSample_runs``.
func readmeTestingExample(temporaryDirectory: String) throws {
    // BEGIN README 2
    let vault = try Vault.create(
        at: temporaryDirectory + "/test.vault",
        credentials: .password("test"),
        configuration: .insecureForTesting()  // fast KDF; refused in the standard vault's directory
    )
    try Keychain(service: "com.example.tests", vault: vault).update("runs", as: Int.self) { ($0 ?? 0) + 1 }
    // END README 2
}

@Suite("README, as an app")
struct ReadmeExampleTests {
    @Test func readmeExample_runs() throws {
        // `Vault.standard` uses the default configuration, which keeps rollback records.
        isolateStateHome()
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

    @Test func readmeTestingSample_runs() throws {
        try withTemporaryDirectory { directory in
            try readmeTestingExample(temporaryDirectory: directory)
            let vault = try Vault(
                path: directory + "/test.vault",
                credentials: .password("test"),
                configuration: .insecureForTesting()
            )
            #expect(try Keychain(service: "com.example.tests", vault: vault).get("runs", as: Int.self) == 1)
        }
    }

    /// Every Swift sample of the README is one compiled above.
    @Test func readmeSamples_matchTheCompiledCopies() throws {
        try expectDocumentSamples(in: "README.md", match: "README", compiledIn: "ReadmeExampleTests.swift")
    }
}
