// vaulttool tests: positional arguments land in the argument their declaration names.

import Testing

/// Commands read arguments through typed keys (Options/OptionKeys.swift) that find a word by
/// the command's declaration; these runs pin which word each argument receives.
@Suite("Argument declarations")
struct ArgumentDeclarationTests {
    private func usage(_ arguments: [String]) throws -> String {
        let result = try Tool.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        return result.stderr
    }

    @Test func migrate_oneWordIsTheVault_twoWordsAreSourceAndVault() throws {
        // One word: <vault>, so --from lacks its <source>.
        #expect(try usage(["migrate", "--from", "json", "v.vault"]).contains("Missing expected argument '<source>'"))
        // Two words: <source> <vault>, an import that needs --from.
        #expect(try usage(["migrate", "export.json", "v.vault"]).contains("Missing '--from <format>'"))
        #expect(
            try usage(["migrate", "--keep-backup", "--from", "json", "export.json", "v.vault"])
                .contains("'--keep-backup' does not apply to imports")
        )
    }

    @Test func merge_takesEveryWordAfterTheVaultAsOthers() throws {
        #expect(try usage(["merge", "v.vault"]).contains("Missing expected argument '<other>'"))
        #expect(
            try usage(["merge", "--base", "b.vault", "v.vault", "x.vault", "y.vault"])
                .contains("--base and --output merge one <other> file, not 2")
        )
        #expect(
            try usage(["merge", "v.vault", "x.vault", "v.vault"]).contains("'v.vault' cannot be merged into itself")
        )
    }

    @Test func firstArgumentIsTheAction() throws {
        #expect(try usage(["device-secret", "bogus"]).contains("The action is 'init' or 'path', not 'bogus'"))
        #expect(
            try usage(["recipients", "ls", "v.vault", "--access-group", "g"])
                .contains("'--access-group' applies only to 'add'")
        )
        #expect(try usage(["credential-helper", "svn", "get"]).contains("Unknown credential helper 'svn'"))
    }

    /// An option's value is the next word unless that word is one of the command's options (as
    /// swift-argument-parser decides); `--opt=value` gives any value (found by an outside review).
    @Test func anOptionName_isNeverTakenAsAValue() throws {
        #expect(
            try usage(["set", "--service", "--account", "--account", "x", "v.vault"])
                .contains("Missing value for '--service <service>'")
        )
        #expect(
            try usage(["get", "--service", "--account", "app", "v.vault"]).contains("Missing value for '--service")
        )
        #expect(try usage(["get", "--password-file", "--", "v.vault"]).contains("Missing value for '--password-file"))
    }
}
