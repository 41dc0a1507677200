// vaulttool tests: `generate | set` stores no trailing newline (issue 12, section 3).

import Foundation
import Testing

@Suite("generate | set: trailing newlines")
struct NewlineTests {
    @Test func generate_toAPipe_printsNoNewline() throws {
        let result = try Tool.run(["generate"])
        #expect(result.status == 0)
        #expect(result.stdoutBytes.count == 15)
        #expect(!result.stdout.hasSuffix("\n"))
    }

    @Test func generate_severalPasswords_areLines() throws {
        let result = try Tool.run(["generate", "--count", "3", "--length", "8"])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(\.count) == [8, 8, 8, 0])
    }

    @Test func generate_onATerminal_endsWithANewline_unlessDashN() throws {
        let w = try Workspace()
        let plain = try Tool.runInTerminal(["generate"], typed: "", in: w.path)
        #expect(plain.stdout.hasSuffix("\r\n"))
        let bare = try Tool.runInTerminal(["generate", "-n"], typed: "", in: w.path)
        #expect(bare.status == 0)
        #expect(!bare.stdout.hasSuffix("\n"))
        #expect(bare.stdout.count == 15)
    }

    @Test func generatePipedIntoSet_storesExactlyThePassword() throws {
        let w = try Workspace()
        try w.makeVault()
        let generated = try w.run(["generate"])
        try w.set(generated.stdout, ["--service", "db", "--account", "app"])
        let get = try w.run(["get", "--password-file", "pw", "--service", "db", "--account", "app", "v.vault"])
        #expect(get.stdoutBytes == generated.stdoutBytes)
        #expect(get.stdoutBytes.count == 15)
    }

    @Test func setTrimNewline_removesOneLFOrCRLF_only() throws {
        let w = try Workspace()
        try w.makeVault()
        for (input, stored) in [("abc\n", "abc"), ("abc\r\n", "abc"), ("abc\n\n", "abc\n"), ("abc", "abc")] {
            try w.set(input, ["--service", "s", "--account", "a", "--trim-newline"])
            let get = try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
            #expect(get.stdout == stored)
        }
        let untrimmed = try w.set("abc\n", ["--service", "s", "--account", "a"])
        #expect(untrimmed.status == 0)
        let get = try w.run(["get", "--password-file", "pw", "--service", "s", "--account", "a", "v.vault"])
        #expect(get.stdout == "abc\n")
    }

    @Test func setTrimNewline_ofALoneNewline_isAnEmptySecret_andRefused() throws {
        let w = try Workspace()
        try w.makeVault()
        let result = try w.run(
            ["set", "--password-file", "pw", "--service", "s", "--account", "a", "--trim-newline", "v.vault"],
            stdin: "\n"
        )
        #expect(result.status == 64)
    }
}
