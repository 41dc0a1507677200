// vaulttool tests: help behaviour; the texts themselves are pinned by HelpSnapshotTests.

import Testing

@Suite("Help")
struct HelpTests {
    @Test func listHelp_namesItsAlias() throws {
        let result = try Tool.run(["ls", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\nALIASES: ls\n"))
        #expect(try Tool.run(["help", "remove"]).stdout.contains("\nALIASES: remove\n"))
    }

    /// Issue 12: examples in every command's help.
    @Test func everyCommand_hasExamples_thatRunThisTool() throws {
        let root = try Tool.run(["--help"]).stdout
        let names = root.components(separatedBy: "SUBCOMMANDS:\n")[1].components(separatedBy: "\n\n")[0]
            .split(separator: "\n").map { $0.split(separator: " ")[0].trimmingCharacters(in: .punctuationCharacters) }
        #expect(names.count >= 13)
        for name in names where name != "help" {
            let help = try Tool.run([name, "--help"]).stdout
            let examples = try #require(help.components(separatedBy: "\nEXAMPLES:\n").last, "\(name)")
            #expect(help.contains("\nEXAMPLES:\n"), "\(name) --help has no examples")
            #expect(examples.split(separator: "\n").allSatisfy { $0.hasPrefix("  ") && $0.contains("vaulttool ") })
        }
    }

    @Test func helpSubcommand_equalsDashDashHelp() throws {
        for command in [
            "create", "verify", "list", "rm", "passwd", "rekey", "migrate", "import", "export", "generate",
            "create", "verify", "list", "rm", "passwd", "migrate", "import", "export", "generate", "credential-helper",
            "completions",
        ] {
            let help = try Tool.run(["help", command])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("OVERVIEW: "))
            #expect(help.stdout.contains("  -h, --help              Show help information.\n"))
            #expect(try Tool.run([command, "--help"]).stdout == help.stdout)
        }
    }
}
