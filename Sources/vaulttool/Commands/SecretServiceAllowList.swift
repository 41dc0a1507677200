// vaulttool secret-service --allow-executable / --disallow-executable / --only-allowed-executables:
// the allow list of Spec/secret-service.md R-SS-28.

import FoundationEssentials
import Glibc
import VaultDelivery
import VaultIO
import VaultSecretService

enum SecretServiceAllowList {
    static func path() throws -> String {
        guard let path = ExecutableAllowList.defaultPath(environment: ProcessInfo.processInfo.environment) else {
            throw ToolError("HOME is not set", exitCode: .usage)
        }
        return path
    }

    /// The policy a serving provider checks callers with.
    static func policy() throws -> ExecutablePolicy { try usable { try ExecutablePolicy(path: try path()) } }

    /// Adds and removes entries, then writes the file atomically
    /// (``ExecutablePolicy/update(at:allow:disallow:resolve:)``).
    static func update(allow: [String], disallow: [String]) throws {
        Output.out(
            try usable {
                try ExecutablePolicy.update(at: try path(), allow: allow, disallow: disallow, resolve: resolve)
            }
        )
    }

    /// Runs `body`; a list file that cannot be used is the user's to correct (exit 64).
    private static func usable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AllowListError {
            throw ToolError(error.description, exitCode: .usage)
        }
    }

    /// `name` as the bus reports a running program: looked up on PATH when it has no `/`, links followed.
    private static func resolve(_ name: String) throws -> String {
        let searchPath = environmentValue("PATH") ?? ChildProgram.minimalPath
        guard let found = try? ChildProgram.lookUp(name, searchPath: searchPath), let real = realpath(found, nil) else {
            throw ToolError("\(name): no such executable", exitCode: .notFound)
        }
        defer { free(real) }
        return String(cString: real)
    }
}
