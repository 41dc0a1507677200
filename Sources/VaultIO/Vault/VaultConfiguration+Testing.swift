// vault: the fast, insecure configuration for apps' unit tests, and the guards around it.

import Glibc
import Synchronization

extension VaultConfiguration {
    /// Whether this is the configuration of ``insecureForTesting(kdf:lockTimeout:deviceSecretPath:deviceSecretCreation:rollbackState:)``.
    public var isInsecureForTesting: Bool { kdfFloor == .waivedForTesting }

    /// Refuses a testing configuration for a path in the standard vault's directory.
    ///
    /// The standard directory is the one ``Vault/standard(directory:configuration:)`` uses without a
    /// `directory` (`$XDG_DATA_HOME/vault`): the user's real keychain and device secret live there,
    /// and a keyslot with the testing KDF must never be added to anything in it.
    ///
    /// - Throws: ``VaultIOError/Code/invalidPath`` when `path` (resolved) lies in that directory.
    func refuseTestingConfiguration(at path: String) throws(VaultIOError) {
        guard isInsecureForTesting, let standard = DeviceSecretFile.dataDirectory().map({ $0 + "/vault" }) else {
            return
        }
        let target = DeviceSecretFile.absolute(path)
        let candidates = [standard, TestProcess.resolved(standard)].compactMap { $0 }
        for directory in candidates where target == directory || target.hasPrefix(directory + "/") {
            throw VaultIOError(
                .invalidPath,
                operation: "insecureForTesting",
                path: path,
                reason: "the insecure testing configuration cannot be used in the standard vault's directory "
                    + "(\(directory)); use a temporary directory"
            )
        }
    }
}

/// Whether this process runs tests, and the one-time warning when the testing configuration is used outside them.
///
/// A process counts as a test process when any of these holds:
/// - the environment sets `VAULT_TESTING=1` (for test runners this cannot recognise);
/// - a test framework is loaded: `libTesting.so` (Swift Testing) or `libXCTest.so` (XCTest), checked with
///   `dlopen(…, RTLD_NOLOAD)`, which finds a library only if the process has already loaded it;
/// - Xcode's test environment variables are set (`XCTestConfigurationFilePath`, `XCTestSessionIdentifier`,
///   `XCTestBundlePath`);
/// - the executable's name ends in `.xctest` (SwiftPM's test bundle).
///
/// Spec: Spec/library-semantics.md, "Testing configuration" (L-TEST-2).
enum TestProcess {
    /// The names of test frameworks' shared libraries.
    static let frameworkLibraries = ["libTesting.so", "libXCTest.so"]
    /// Environment variables that only test runners set.
    static let testEnvironmentVariables = [
        "XCTestConfigurationFilePath", "XCTestSessionIdentifier", "XCTestBundlePath",
    ]

    /// The decision, from its inputs, so that it can be checked without a second process.
    static func isTestProcess(
        environment: (String) -> String?,
        executable: String,
        isLibraryLoaded: (String) -> Bool
    ) -> Bool {
        if environment("VAULT_TESTING") == "1" { return true }
        if testEnvironmentVariables.contains(where: { environment($0) != nil }) { return true }
        if executable.split(separator: "/").last?.hasSuffix(".xctest") == true { return true }
        return frameworkLibraries.contains(where: isLibraryLoaded)
    }

    /// Whether the current process runs tests.
    static var isCurrent: Bool {
        isTestProcess(
            environment: { getenv($0).map { String(cString: $0) } },
            executable: CommandLine.arguments.first ?? "",
            isLibraryLoaded: { name in
                guard let handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD) else { return false }
                dlclose(handle)
                return true
            }
        )
    }

    /// The warning written to stderr, once per process, when the testing configuration is made outside tests.
    static let warning =
        "vault: warning: VaultConfiguration.insecureForTesting() is used outside a test process; password "
        + "keyslots it creates can be brute-forced in moments. Use it only in tests (set VAULT_TESTING=1 if "
        + "your test runner is not recognised).\n"

    private static let warned = Atomic<Bool>(false)

    /// Writes ``warning`` to `sink` (stderr by default) the first time it is called outside a test process.
    ///
    /// - Returns: Whether it wrote the warning.
    @discardableResult
    static func warnIfOutsideTests(
        isTestProcess: Bool = TestProcess.isCurrent,
        sink: (String) -> Void = { text in
            _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        }
    ) -> Bool {
        guard !isTestProcess, !warned.exchange(true, ordering: .relaxed) else { return false }
        sink(warning)
        return true
    }

    /// `path` with symbolic links resolved, or `nil` when it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
