// vault: the Swift samples of the DocC articles (GettingStarted, Rollback, the VaultIO landing page
// and VaultFormat's "Reading a vault"), compiled as an app would write them, and run where running
// them touches nothing outside a temporary directory. Each sample sits between `// BEGIN <name> <n>`
// and `// END <name> <n>`; `articles_matchTheCompiledCopies` keeps the two copies identical.

import Foundation
import Testing
import VaultIO

/// Sample 1 uses the user's real standard vault: compiled, never run.
func gettingStarted_standard() throws {
    // BEGIN Getting 1

    let keychain = try Keychain.standard  // service = executable name
    try keychain.set("s3cr3t", forKey: "api-token")
    let token: String? = try keychain.get("api-token")  // nil when missing
    keychain["refresh"] = "r1"  // subscripts; nil deletes
    try keychain.set(42, forKey: "launches")  // Int, Bool, Double, Date, any Codable
    let launches = try keychain.get("launches", as: Int.self)
    // END Getting 1
    _ = (token, launches)
}

func gettingStarted_password(path: String, secretPath: String, passphrase: String, token: String) throws -> Vault {
    // BEGIN Getting 2
    let configuration = VaultConfiguration(deviceSecretPath: secretPath, deviceSecretCreation: .ifMissing)
    let vault = try Vault.create(at: path, credentials: .password(passphrase), configuration: configuration)
    let keychain = Keychain(service: "com.example.app", vault: vault)
        .accessibility(.whenUnlockedThisDeviceOnly)
        .label("Example")
    try keychain.set(token, forKey: "alice")
    vault.lock()  // whenUnlocked items now throw KeychainError.locked
    try vault.unlock(with: .password(passphrase))
    // END Getting 2
    return vault
}

func gettingStarted_typed(keychain: Keychain) throws {
    // BEGIN Getting 3
    let launches = Keychain.Key<Int>("launches", default: 0)
    try keychain.set(try keychain.get(launches)! + 1, for: launches)

    struct Session: Sendable {
        @KeychainStored<String?> var token: String?  // nil until stored; nil removes
        @KeychainStored<String> var mode: String  // the default until stored
        init(keychain: Keychain) {
            _token = KeychainStored("token", keychain: keychain)
            _mode = KeychainStored("mode", default: "standard", keychain: keychain)
        }
    }
    // END Getting 3
    let session = Session(keychain: keychain)
    session.token = "abc"
}

func gettingStarted_changePassword(vault: Vault, newPassphrase: String) throws {
    // BEGIN Getting 4
    try vault.write { txn in
        try txn.replaceKeyslot(at: 0, kind: .password, credentials: .password(newPassphrase))
    }
    // END Getting 4
}

func gettingStarted_changePasswordWithRecovery(vault: Vault, newPassphrase: String, recoveryPassphrase: String) throws {
    // BEGIN Getting 5
    try vault.write { txn in
        try txn.replaceKeyslot(
            at: 0,
            kind: .password,
            credentials: .password(newPassphrase),
            rekey: RekeyOptions(credentials: [.password(recoveryPassphrase)])
        )
    }
    // END Getting 5
}

func rollback_open(path: String, passphrase: String) throws -> Vault {
    // BEGIN Rollback 1
    let vault: Vault
    do {
        vault = try Vault(path: path, credentials: .password(passphrase))
    } catch let error as VaultIOError where error.code == .rolledBack {
        print("seen generation \(error.rollback!.seenGeneration), found \(error.rollback!.foundGeneration)")
        throw error
    }
    // END Rollback 1
    return vault
}

func landing_readAndWrite(path: String, passphrase: String, draft: ItemDraft) throws -> [String] {
    // BEGIN Landing 1
    let vault = try Vault(path: path, credentials: .password(passphrase))
    let names = try vault.read { snapshot in
        try snapshot.items(includeSecrets: false).map(\.attributes.service)
    }
    try vault.write { txn in
        try txn.set(draft)
    }
    // END Landing 1
    return names
}

func reading_snapshot(fileBytes: [UInt8]) throws -> SecretBytes? {
    // BEGIN Reading 1
    let snapshot = try VaultSnapshot.open(fileBytes, with: .password("correct horse"))
    let key = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(service: "api", account: "bot"))
    let secret = try snapshot.position(of: key).map { try snapshot.secret(at: $0) }  // nil when absent
    // END Reading 1
    return secret
}

@Suite("DocC articles, as an app")
struct DocCArticleTests {
    @Test func gettingStarted_runs() throws {
        // The sample's default configuration keeps rollback records in the user's state directory.
        isolateStateHome()
        try withTemporaryDirectory { directory in
            // The sample's default configuration: the real KDF cost, once to create and once to unlock.
            let vault = try gettingStarted_password(
                path: directory + "/app.vault",
                secretPath: directory + "/device-secret",
                passphrase: "correct horse",
                token: "t0ken"
            )
            let keychain = Keychain(service: "com.example.app", vault: vault)
            #expect(try keychain.accessibility(.whenUnlockedThisDeviceOnly).string(forKey: "alice") == "t0ken")
            try gettingStarted_typed(keychain: keychain)
            try gettingStarted_typed(keychain: keychain)
            #expect(try keychain.get("launches", as: Int.self) == 2)
        }
        try withTemporaryDirectory { directory in
            let path = directory + "/fast.vault"
            let vault = try Vault.create(
                at: path,
                credentials: .password("old"),
                configuration: .insecureForTesting()
            )
            try gettingStarted_changePassword(vault: vault, newPassphrase: "new")
            #expect(throws: (any Error).self) {
                try Vault(path: path, credentials: .password("old"), configuration: .insecureForTesting())
            }
            _ = try Vault(path: path, credentials: .password("new"), configuration: .insecureForTesting())
        }
    }

    @Test func readingAVault_runs() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/app.vault"
            let vault = try Vault.create(
                at: path,
                credentials: .password("correct horse"),
                configuration: .insecureForTesting()
            )
            try Keychain(service: "api", vault: vault).set("token", forKey: "bot")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(
                try reading_snapshot(fileBytes: bytes).map {
                    String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self)
                } == "token"
            )
        }
    }

    @Test func articles_matchTheCompiledCopies() throws {
        let file = "DocCArticleTests.swift"
        try expectDocumentSamples(
            in: "Sources/VaultIO/Documentation.docc/GettingStarted.md",
            match: "Getting",
            compiledIn: file
        )
        try expectDocumentSamples(
            in: "Sources/VaultIO/Documentation.docc/Rollback.md",
            match: "Rollback",
            compiledIn: file
        )
        try expectDocumentSamples(in: "Sources/VaultIO/Documentation.docc/index.md", match: "Landing", compiledIn: file)
        try expectDocumentSamples(
            in: "Sources/VaultFormat/Documentation.docc/ReadingAndWriting.md",
            match: "Reading",
            compiledIn: file
        )
    }
}
