// vault: non-throwing setters leave a trace (L-KC-16), and a write inside a write fails at once (L-LK-3).

import Foundation
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Setters that cannot drop a write, and writes that are not reentrant")
struct SetterAndReentryTests {
    @Test func aWriteInsideAWrite_failsAtOnce_asReentrant_andTheOuterWriteCommits() throws {
        try withTemporaryDirectory { directory in
            var configuration = testConfiguration
            configuration.lockTimeout = .seconds(600)  // a wait for itself would outlast the test
            let vault = try makeVault(in: directory, configuration: configuration)
            let second = try Vault(path: vault.path, credentials: .password(testPassword), configuration: configuration)
            var inner: [VaultIOError.Code] = []
            try vault.write { txn in
                for other in [vault, second] {
                    do {
                        try other.write { _ in }
                    } catch let error as VaultIOError {
                        inner.append(error.code)
                    }
                }
                try txn.set(makeDraft(service: "outer"))
            }
            #expect(inner == [.reentrantWrite, .reentrantWrite])
            #expect(try vault.read { try $0.index.count } == 1)
            try vault.write { txn in try txn.set(makeDraft(service: "after")) }  // the thread's record was cleared
        }
    }

    @Test func aKeychainSetInsideUpdate_isRefusedWithTheReason_andUpdateStillStores() throws {
        try withKeychainVault { vault, _ in
            let keychain = Keychain(service: "nested", vault: vault)
            var refusal: KeychainError?
            try keychain.update("counter", as: Int.self) { old in
                do {
                    try keychain.set("x", forKey: "other")
                } catch {
                    refusal = error as? KeychainError
                }
                return (old ?? 0) + 1
            }
            guard case .invalidParameter(let reason) = refusal else {
                Issue.record("expected invalidParameter, got \(String(describing: refusal))")
                return
            }
            #expect(reason.contains("not reentrant"))
            #expect(try keychain.get("counter", as: Int.self) == 1)
            #expect(try keychain.string(forKey: "other") == nil)
        }
    }

    @Test func aSetterThatCannotStore_reportsTheKeyAndError_andKeepsThePreviousValue() throws {
        try withKeychainVault { vault, _ in
            let reports = Mutex<[String]>([])
            let keychain = Keychain(service: "setters", vault: vault).onSetterFailure { error, key in
                reports.withLock { $0.append("\(key): \(error)") }
            }
            keychain["token"] = "good"
            keychain["token"] = ""  // refused (L-KC-7): reported, not dropped
            let stored = KeychainStored<String?>("token", keychain: keychain)
            stored.wrappedValue = ""
            #expect(keychain["token"] == "good")
            #expect(reports.withLock { $0 }.count == 2)
            #expect(reports.withLock { $0 }.allSatisfy { $0.hasPrefix("token: ") })
        }
    }

    @Test func aSetter_waitsOutAWriterThatHoldsTheLockLongerThanOneTimeout() throws {
        try withTemporaryDirectory { directory in
            var configuration = testConfiguration
            configuration.lockTimeout = .milliseconds(400)
            let vault = try makeVault(in: directory, configuration: configuration)
            let holder = try Vault(path: vault.path, credentials: .password(testPassword), configuration: configuration)
            let held = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                try? holder.write { _ in
                    held.signal()
                    Thread.sleep(forTimeInterval: 0.6)  // longer than one lock timeout, shorter than three
                }
                done.signal()
            }
            held.wait()
            let reports = Mutex<[String]>([])
            let keychain = Keychain(service: "wait", vault: vault).onSetterFailure { error, key in
                reports.withLock { $0.append("\(key): \(error)") }
            }
            keychain["k"] = "stored"
            done.wait()
            #expect(reports.withLock { $0 } == [])
            #expect(keychain["k"] == "stored")
        }
    }

    @Test func fourProcesses_ofSubscriptWrites_storeEveryOne() throws {
        try withKeychainVault { vault, directory in
            let path = vault.path
            let configuration = deviceConfiguration(directory + "/device.secret")
            Keychain(service: "procs", vault: vault)["warm-up"] = "w"
            try runInChildProcesses(4) { child in
                let mine = try Vault(path: path, credentials: .password(testPassword), configuration: configuration)
                let failed = Mutex(false)
                let keychain = Keychain(service: "procs", vault: mine).onSetterFailure { _, _ in
                    failed.withLock { $0 = true }
                }
                for index in 0..<150 { keychain["p\(child)-\(index)"] = "v\(index)" }
                if failed.withLock({ $0 }) { throw KeychainError.lockTimeout }
            }
            #expect(try Keychain(service: "procs", vault: vault).allKeys().count == 1 + 4 * 150)
        }
    }
}
