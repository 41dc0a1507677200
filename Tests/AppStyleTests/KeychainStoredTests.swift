// vault: @KeychainStored as an app writes it: a non-optional property with a default, and
// settings shared across tasks (issue 18 §3, Spec/library-semantics.md L-KC-18).

import Foundation
import Testing
import VaultIO

/// An app's settings: Sendable, so one value is shared by every task; the wrapper's setter is
/// nonmutating, so a `let` of it is written through.
struct AppSettings: Sendable {
    @KeychainStored<String?> var token: String?
    @KeychainStored<String> var mode: String
    @KeychainStored<Int> var launches: Int

    init(keychain: Keychain) {
        _token = KeychainStored("token", keychain: keychain)
        _mode = KeychainStored("mode", default: "standard", keychain: keychain)
        _launches = KeychainStored("launches", default: 0, keychain: keychain)
    }
}

/// A Sendable class holds the settings as a `let` (a class's wrapped `var` is mutable storage,
/// which Swift refuses in a `final class: Sendable` for any property wrapper).
final class AppModel: Sendable {
    let settings: AppSettings
    /// The wrapper itself, as a constant: `wrappedValue` reads and writes it.
    let theme: KeychainStored<String>

    init(keychain: Keychain) {
        settings = AppSettings(keychain: keychain)
        theme = KeychainStored("theme", default: "light", keychain: keychain)
    }
}

@Suite("@KeychainStored")
struct KeychainStoredTests {
    /// Before, a default still gave an optional property (`@KeychainStored("mode", default: "x")`
    /// declared `var mode: String?`), so every use unwrapped a value that could not be `nil`.
    @Test func aDefault_givesANonOptionalProperty() throws {
        try withVault { keychain throws in
            let settings = AppSettings(keychain: keychain)
            #expect(settings.mode == "standard")  // nothing stored: the default
            settings.mode = "compact"
            #expect(try keychain.get("mode", as: String.self) == "compact")
            #expect(settings.mode == "compact")
            #expect(try settings.$mode.get() == "compact")
            // Removing the item brings the default back.
            #expect(try settings.$mode.remove())
            #expect(settings.mode == "standard")
            #expect(try keychain.contains("mode") == false)
            settings.launches += 1
            settings.launches += 1
            #expect(try keychain.get("launches", as: Int.self) == 2)
            // The optional form is unchanged: nil until stored, and assigning nil removes.
            #expect(settings.token == nil)
            settings.token = "abc"
            #expect(try keychain.get("token", as: String.self) == "abc")
            settings.token = nil
            #expect(try keychain.contains("token") == false)
            // Values are stored in the fixed encodings (L-KC-4), not as JSON of an Optional.
            settings.token = "plain"
            #expect(try keychain.get("token", as: Data.self) == Data("plain".utf8))
        }
    }

    /// L-KC-16 for the non-optional form: a write that cannot be stored is reported with its key,
    /// never dropped in silence, and the item keeps its value.
    @Test func aNonOptionalSetter_thatCannotStore_isReported() throws {
        try withVault { plain throws in
            let reports = Reports()
            let keychain = plain.onSetterFailure { error, key in reports.append("\(key): \(error)") }
            let settings = AppSettings(keychain: keychain)
            settings.mode = "compact"
            settings.mode = ""  // an empty value is refused (L-KC-7)
            #expect(settings.mode == "compact")
            #expect(reports.all == ["mode: \(KeychainError.emptyValue)"])
        }
    }

    /// Settings shared by many tasks at once, through a `final class: Sendable`.
    @Test func settings_areSharedAcrossTasks() async throws {
        try await withVaultAsync { keychain async throws in
            let model = AppModel(keychain: keychain)
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask { model.settings.mode = "mode \(index)" }
                    group.addTask { model.theme.wrappedValue = "theme \(index)" }
                }
            }
            #expect(model.settings.mode.hasPrefix("mode "))
            #expect(model.theme.wrappedValue.hasPrefix("theme "))
            #expect(try await keychain.get("theme", as: String.self) == model.theme.wrappedValue)
        }
    }

    private func withVault(_ body: (Keychain) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/app.vault"
            let vault = try Vault.create(at: path, credentials: .password("pw"), configuration: .insecureForTesting())
            try body(Keychain(service: "com.example.app", vault: vault))
        }
    }

    private func withVaultAsync(_ body: (Keychain) async throws -> Void) async throws {
        try await withTemporaryDirectoryAsync { directory in
            let path = directory + "/app.vault"
            let vault = try Vault.create(at: path, credentials: .password("pw"), configuration: .insecureForTesting())
            try await body(Keychain(service: "com.example.app", vault: vault))
        }
    }
}

/// What a setter-failure handler was given, from any thread.
private final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
