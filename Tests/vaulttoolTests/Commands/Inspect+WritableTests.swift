// vaulttool tests: `inspect --json` says whether this user can replace the vault (`writable`).
// From issue 12's list of everyday friction (its help bullet).

import Foundation
import Glibc
import Testing

@Suite("inspect --json: writable")
struct InspectWritableTests {
    @Test func inspectWritable_isFalse_whenThisUserCannotReplaceTheFile() throws {
        let w = try Workspace()
        try w.makeVault()
        #expect(try w.run(["inspect", "--json", "v.vault"]).json()["writable"] as? Bool == true)
        #expect(chmod(w.file("v.vault"), 0o644) == 0)
        let result: RunResult
        if getuid() == 0 {
            // Root may write anywhere: ask as nobody, who can read the file but not write the directory.
            result = try runAsNobody([Tool.path, "inspect", "--json", "v.vault"], in: w.path)
        } else {
            #expect(chmod(w.path, 0o555) == 0)
            defer { chmod(w.path, 0o755) }
            result = try w.run(["inspect", "--json", "v.vault"])
        }
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.json()
        #expect(report["writable"] as? Bool == false)
        #expect((report["warnings"] as? [String] ?? []).contains { $0.contains("cannot replace the file") })
    }

    func runAsNobody(_ command: [String], in directory: String) throws -> RunResult {
        #expect(chmod(directory, 0o755) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + command
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self),
            stdoutBytes: Array(out)
        )
    }
}
