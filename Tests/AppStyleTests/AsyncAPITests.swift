// vault: the async API waits for the write lock without holding a thread of Swift's cooperative
// pool (Spec/library-semantics.md L-ASYNC-1), written as an app would, public API only.

import Foundation
import Testing
import VaultIO

/// Set once by the holder thread, read after `wait` returns.
private final class Flag: @unchecked Sendable {
    var value = false
}

@Suite("Async API, as an app")
struct AsyncAPITests {
    /// Eight async writers wait while another writer holds the lock, and a plain task must still
    /// run meanwhile: the holder releases the lock only once that task has run. With writes that
    /// block their caller, the eight would hold every thread of the cooperative pool (one per
    /// processor), the task could not run, and the holder would give up after 20 s.
    @Test func waitingWriters_leaveTheCooperativePoolFree() async throws {
        try await withTemporaryDirectoryAsync { directory in
            let vault = try await Vault.open(
                path: try Vault.create(
                    at: directory + "/app.vault",
                    credentials: .password("pw"),
                    configuration: .insecureForTesting()
                ).path,
                credentials: .password("pw"),
                configuration: .insecureForTesting(lockTimeout: .seconds(60))
            )
            let keychain = Keychain(service: "counter", vault: vault)
            let release = DispatchSemaphore(value: 0)
            let holding = DispatchSemaphore(value: 0)
            let released = Flag()
            Thread {
                try? vault.write { _ in
                    holding.signal()
                    // A guard against a pool that never frees, not a measure of time: generous,
                    // so that a loaded machine (CI beside another test run) does not trip it.
                    released.value = release.wait(timeout: .now() + 180) == .success
                }
            }.start()
            holding.wait()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask { try await keychain.set("value \(index)", forKey: "key-\(index)") }
                }
                // Runs on the cooperative pool while the eight wait for the lock.
                await Task { release.signal() }.value
                try await group.waitForAll()
            }
            #expect(released.value)
            for index in 0..<8 { #expect(try await keychain.get("key-\(index)", as: String.self) == "value \(index)") }
            let counted = try await vault.read { try $0.index.count }
            #expect(counted == 8)
        }
    }

    @Test func asyncUpdateAndRemove_behaveAsTheSyncCalls() async throws {
        try await withTemporaryDirectoryAsync { directory in
            let vault = try Vault.create(
                at: directory + "/app.vault",
                credentials: .password("pw"),
                configuration: .insecureForTesting()
            )
            let keychain = Keychain(service: "counter", vault: vault)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await keychain.update("n", as: Int.self) { ($0 ?? 0) + 1 } }
                }
                try await group.waitForAll()
            }
            #expect(try await keychain.get("n", as: Int.self) == 20)
            #expect(try await keychain.remove("n"))
            #expect(try await keychain.remove("n") == false)
            await #expect(throws: KeychainError.emptyKey) { try await keychain.set("x", forKey: "") }
        }
    }
}

/// ``withTemporaryDirectory(_:)`` for an async body.
func withTemporaryDirectoryAsync<R>(_ body: (String) async throws -> R) async throws -> R {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("appstyle-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url.path)
}
