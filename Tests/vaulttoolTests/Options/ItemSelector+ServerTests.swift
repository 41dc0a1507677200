// vaulttool tests: the small behaviours of issue 12's help bullet: `get` on a terminal,
// `inspect --json` `writable`, server names without case, port 0.

import Foundation
import Glibc
import Testing

@Suite("everyday behaviour")
struct EverydayBehaviourTests {
    @Test func get_onATerminal_endsWithANewline_butNotInAPipe() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("s3cret", ["--service", "s", "--account", "a"])
        let arguments = ["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"]
        let terminal = try Tool.runInTerminal(arguments, typed: "", in: w.path)
        #expect(terminal.stdout.hasSuffix("s3cret\r\n"))
        #expect(try w.run(arguments).stdout == "s3cret")
    }

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

    @Test func serverNames_compareWithoutCase() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("token", ["--server", "GitHub.COM", "--account", "ci"])
        let get = try w.run(["get", "--password-file", "pw", "--server", "github.com", "--account", "ci", "v.vault"])
        #expect(get.stdout == "token")
        let list = try w.run(["list", "--json", "--password-file", "pw", "--server", "GITHUB.com", "v.vault"])
        let items = try #require(try list.json()["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["server"] as? String == "github.com")
        // Setting it again in another case updates the same item.
        let update = try w.run(
            ["set", "--password-file", "pw", "--server", "github.com", "--account", "ci", "v.vault"],
            stdin: "new"
        )
        #expect(update.stdout.hasPrefix("Updated item "))
    }

    @Test func portZero_meansNoPort_everywhere() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.set("a", ["--server", "example.com", "--account", "u", "--port", "0"])
        try w.set("b", ["--server", "example.com", "--account", "u", "--port", "8443"])
        let none = try w.run([
            "get", "--password-file", "pw", "--server", "example.com", "--account", "u", "--port", "0", "v.vault",
        ])
        #expect(none.stdout == "a")
        let json = try w.run([
            "list", "--json", "--password-file", "pw", "--server", "example.com", "--port", "0", "v.vault",
        ])
        let items = try #require(try json.json()["items"] as? [[String: Any]])
        #expect(items.map { $0["port"] as? Int } == [0])
        let bad = try w.run(["list", "--password-file", "pw", "--port", "65536", "v.vault"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("from 0 (no port) to 65535"))
    }

    /// One style for every error: `Error: ` and a sentence that starts with a capital letter and has no final period.
    @Test func errorMessages_haveOneStyle() throws {
        let w = try Workspace()
        try w.makeVault()
        try w.write("bad", "wrong password\n")
        let runs = [
            ["list", "--bogus", "v.vault"],  // usage
            ["get", "--password-file", "bad", "--service", "s", "v.vault"],  // wrong credential
            ["get", "--password-file", "pw", "--service", "nothing", "v.vault"],  // not found
            ["list", "--password-file", "pw", "missing.vault"],  // file system
            ["create", "--password-file", "pw", "v.vault"],  // exists
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"],  // empty secret
        ]
        for arguments in runs {
            let result = try w.run(arguments)
            #expect(result.status != 0)
            let line = try #require(result.stderr.split(separator: "\n").first, "\(arguments)")
            #expect(line.hasPrefix("Error: "), "\(line)")
            #expect(line.dropFirst(7).first?.isUppercase == true, "\(line)")
            #expect(!line.hasSuffix("."), "\(line)")
        }
    }
}
