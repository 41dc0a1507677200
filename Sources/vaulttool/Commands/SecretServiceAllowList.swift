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
    static func policy() throws -> ExecutablePolicy {
        do {
            return try ExecutablePolicy(path: try path())
        } catch let error as AllowListError {
            throw ToolError(error.description, exitCode: .usage)
        }
    }

    /// Adds and removes entries, then writes the file atomically (mode 0600).
    static func update(allow: [String], disallow: [String]) throws {
        let path = try path()
        _ = try policy()  // refuses a file that is not ours or not a list before changing it
        let old = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        guard var list = ExecutableAllowList(parsing: old) else {
            throw ToolError("\(path) is not an allow list", exitCode: .usage)
        }
        var report = ""
        for name in allow {
            let executable = try resolve(name)
            let fd = open(executable, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ToolError("cannot read \(executable)", exitCode: .ioFailure) }
            defer { close(fd) }
            guard let digest = ExecutableAllowList.digest(ofFileAt: fd) else {
                throw ToolError("cannot read \(executable)", exitCode: .ioFailure)
            }
            list.allow(path: executable, digest: digest)
            report += "allowed \(executable) (sha256:\(ExecutableAllowList.hex(digest)))\n"
        }
        for name in disallow {
            let executable = (try? resolve(name)) ?? name
            report += list.disallow(path: executable) ? "disallowed \(executable)\n" : "not listed: \(executable)\n"
        }
        try FileManager.default.createDirectory(
            atPath: String(path[..<path.lastIndex(of: "/")!]),
            withIntermediateDirectories: true
        )
        try DurableFile.write(at: path, contents: Array(list.text.utf8), mode: 0o600)
        Output.out(report)
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
