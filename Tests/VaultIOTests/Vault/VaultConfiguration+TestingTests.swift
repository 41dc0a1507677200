// vault: the public testing configuration: refused in the standard directory, warned about outside tests.

import Foundation
import Testing

@testable import VaultIO

/// Spec: Spec/library-semantics.md (L-TEST-1, L-TEST-2).
@Suite("Testing configuration")
struct TestingConfigurationTests {
    /// The directory `Vault.standard()` uses, as this process sees it.
    private var standardDirectory: String {
        get throws { try #require(DeviceSecretFile.defaultPath).replacingOccurrences(of: "/device-secret", with: "") }
    }

    // L-TEST-1
    @Test func insecureForTesting_createInStandardDirectory_throwsInvalidPath() throws {
        let path = try standardDirectory + "/insecure-test-\(UUID().uuidString).vault"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: VaultIOError(.invalidPath)) {
            try Vault.create(at: path, credentials: .password("x"), configuration: .insecureForTesting())
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // L-TEST-1
    @Test func insecureForTesting_openOrStandardInStandardDirectory_throwsInvalidPath_andMakesNothing() throws {
        let directory = try standardDirectory
        let existedBefore = FileManager.default.fileExists(atPath: directory)
        #expect(throws: VaultIOError(.invalidPath)) {
            try Vault(
                path: directory + "/default.vault",
                credentials: .password("x"),
                configuration: .insecureForTesting()
            )
        }
        #expect(throws: VaultIOError(.invalidPath)) { try Vault.standard(configuration: .insecureForTesting()) }
        #expect(FileManager.default.fileExists(atPath: directory) == existedBefore)
    }

    // L-TEST-1: an explicit directory of the caller's is not the standard one.
    @Test func insecureForTesting_standardWithOwnDirectory_works() throws {
        try withTemporaryDirectory { directory in
            let vault = try Vault.standard(directory: directory, configuration: .insecureForTesting())
            try Keychain(service: "s", vault: vault).set("v", forKey: "k")
            #expect(try Keychain(service: "s", vault: vault).string(forKey: "k") == "v")
        }
    }

    @Test func defaultConfiguration_isNotTheTestingOne() {
        #expect(!VaultConfiguration().isInsecureForTesting)
        #expect(VaultConfiguration.insecureForTesting().isInsecureForTesting)
    }

    // L-TEST-2
    @Test func testProcessDetection_recognisesRunnersFrameworksAndTheOverride() {
        func decide(env: [String: String] = [:], exe: String = "/usr/bin/myapp", loaded: Set<String> = []) -> Bool {
            TestProcess.isTestProcess(environment: { env[$0] }, executable: exe, isLibraryLoaded: loaded.contains)
        }
        #expect(!decide())
        #expect(!decide(env: ["VAULT_TESTING": "0"]))
        #expect(decide(env: ["VAULT_TESTING": "1"]))
        #expect(decide(env: ["XCTestConfigurationFilePath": "/tmp/x"]))
        #expect(decide(exe: "/work/.build/debug/appPackageTests.xctest"))
        #expect(decide(loaded: ["libTesting.so"]))
        #expect(decide(loaded: ["libXCTest.so"]))
        #expect(TestProcess.isCurrent, "this test process loads Swift Testing")
    }

    // L-TEST-2
    @Test func warning_outsideTests_isWrittenOnce_andNeverInTests() {
        var written: [String] = []
        #expect(!TestProcess.warnIfOutsideTests(isTestProcess: true) { written.append($0) })
        #expect(written.isEmpty)
        TestProcess.warnIfOutsideTests(isTestProcess: false) { written.append($0) }
        TestProcess.warnIfOutsideTests(isTestProcess: false) { written.append($0) }
        #expect(written.count == 1)
        #expect(written.first?.contains("insecureForTesting") == true)
    }
}
