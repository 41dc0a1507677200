// vault: a keychain whose vault another writer rekeyed says so, instead of "locked" (L-ERR-3).

import Foundation
import Testing

@testable import VaultIO

@Suite("Rekey underneath a keychain")
struct RekeyUnderneathTests {
    /// Before, the keys a `Vault` held no longer opening the file (another writer rekeyed it)
    /// reached a Keychain caller as `.locked`: the app asked the user to unlock a vault it had
    /// never locked, and could not tell this from `lock()` or the idle timeout.
    @Test func afterAnotherWriterRekeyed_readsAndWritesThrowCredentialsRequired_untilUnlock() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let keychain = Keychain(service: "app", vault: vault)
            try keychain.set("s3cr3t", forKey: "token")
            let other = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            try other.write { _ = try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }

            #expect(throws: KeychainError.credentialsRequired) { _ = try keychain.get("token") as String? }
            #expect(throws: KeychainError.credentialsRequired) { try keychain.set("new", forKey: "token") }
            #expect(throws: KeychainError.credentialsRequired) { _ = try keychain.allKeys() }
            do throws(KeychainError) {
                let _: String? = try keychain.get("token")
            } catch {
                #expect(error != .locked)
                let wrapped = VaultError(error)
                #expect(wrapped.kind == .credentialsRequired)
                #expect(error.localizedDescription.contains("rekeyed"), "\(error.localizedDescription)")
                #expect(error.localizedDescription.contains("unlock"), "\(error.localizedDescription)")
            }
            // Wrapped from the Vault call itself, the VaultIO code and the path are kept too.
            do {
                _ = try vault.read { $0.header.generation }
                Issue.record("the old keys opened the rekeyed vault")
            } catch {
                let wrapped = VaultError(error)
                #expect(wrapped.kind == .credentialsRequired)
                #expect(wrapped.ioCode == .credentialsRequired)
                #expect(wrapped.path == vault.path)
            }

            // The remedy the error names works: unlocking with the credential adopts the new keys.
            try vault.unlock(with: .password(testPassword))
            #expect(try keychain.get("token") == "s3cr3t")
            try keychain.set("new", forKey: "token")
            #expect(try other.read { _ in true })
            // A vault that was locked still says `.locked`: the two cases stay apart.
            vault.lock()
            #expect(throws: KeychainError.locked) { _ = try keychain.get("token") as String? }
        }
    }

    /// A non-throwing setter reports the same case to its handler (L-KC-16), and the value stays.
    @Test func afterAnotherWriterRekeyed_aSubscriptSetterReportsCredentialsRequired() throws {
        try withTemporaryDirectory { directory in
            let vault = try makeVault(in: directory)
            let reported = ReportedErrors()
            let keychain = Keychain(service: "app", vault: vault).onSetterFailure { error, key in
                reported.append(error, key)
            }
            try keychain.set("s3cr3t", forKey: "token")
            let other = try Vault(
                path: vault.path,
                credentials: .password(testPassword),
                configuration: testConfiguration
            )
            try other.write { _ = try $0.rekey(RekeyOptions(credentials: [.password(testPassword)])) }
            keychain["token"] = "new"
            #expect(reported.all.map(\.error) == [.credentialsRequired])
            #expect(reported.all.map(\.key) == ["token"])
            #expect(try Keychain(service: "app", vault: other).get("token") == "s3cr3t")
        }
    }
}

/// Errors a setter handler was given, from any thread.
private final class ReportedErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(error: KeychainError, key: String)] = []

    func append(_ error: KeychainError, _ key: String) {
        lock.withLock { entries.append((error, key)) }
    }

    var all: [(error: KeychainError, key: String)] { lock.withLock { entries } }
}
