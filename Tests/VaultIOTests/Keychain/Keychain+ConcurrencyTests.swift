// vault: the Keychain API from many threads and from two processes.

import Dispatch
import Foundation
import Synchronization
import Testing
import VaultFormat
import VaultIO

@Suite("Keychain concurrency")
struct KeychainConcurrencyTests {
    @Test func manyThreads_readingAndWriting_oneKeychain() throws {
        try withKeychainVault { vault, _ throws in
            let keychain = Keychain(service: "threads", vault: vault)
            try keychain.set("shared", forKey: "shared")
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                do {
                    for index in 0..<10 {
                        if thread % 2 == 0 {
                            try keychain.set(index, forKey: "t\(thread)-\(index)")
                        } else {
                            guard try keychain.string(forKey: "shared") == "shared" else {
                                throw KeychainError.itemNotFound
                            }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(thread): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(try keychain.allKeys().count == 1 + 4 * 10)
        }
    }

    @Test func twoProcesses_settingDifferentKeys_bothKeepTheirs() throws {
        try withKeychainVault { vault, directory throws in
            try Keychain(service: "procs", vault: vault).set("parent", forKey: "parent")
            let path = vault.path
            let configuration = deviceConfiguration(directory + "/device.secret")
            try runInChildProcesses(2) { child in
                let mine = try Vault(path: path, credentials: .password(testPassword), configuration: configuration)
                let keychain = Keychain(service: "procs", vault: mine)
                for index in 0..<10 { try keychain.set("v", forKey: "p\(child)-\(index)") }
            }
            #expect(try Keychain(service: "procs", vault: vault).allKeys().count == 21)
        }
    }
}
