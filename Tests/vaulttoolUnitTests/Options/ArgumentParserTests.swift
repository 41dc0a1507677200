// vaulttool unit tests: the argument parser, run in-process against the commands' own declarations.

import Testing

@testable import vaulttool

@Suite("ArgumentParser")
struct ArgumentParserTests {
    /// The message of the usage error that parsing `arguments` for `command` throws.
    private func usageError(_ arguments: [String], for command: any Command.Type) -> String? {
        do {
            _ = try ParsedArguments(arguments, for: command)
            return nil
        } catch {
            return (error as? UsageError)?.message
        }
    }

    @Test func inlineValue_isTheOptionsValue() throws {
        let parsed = try ParsedArguments(["--service=db", "v.vault"], for: Get.self)
        #expect(parsed.values["--service"] == ["db"])
        #expect(parsed.positionals == ["v.vault"])
    }

    @Test func doubleDash_endsTheOptions() throws {
        let parsed = try ParsedArguments(["--json", "--", "-odd.vault"], for: Get.self)
        #expect(parsed.values["--json"] == [""])
        #expect(parsed.positionals == ["-odd.vault"])
    }

    /// `--service --account x` misses a value instead of naming the service `--account`, as
    /// swift-argument-parser decides; `--service=--account` still gives it.
    @Test func anOptionAfterAnOption_isNoValue() throws {
        #expect(
            usageError(["--service", "--account", "x", "v"], for: Get.self) == "Missing value for '--service <service>'"
        )
        let parsed = try ParsedArguments(["--service=--account", "v"], for: Get.self)
        #expect(parsed.values["--service"] == ["--account"])
    }

    @Test func mistakes_areUsageErrorsThatNameTheWord() {
        #expect(usageError(["--nope", "v"], for: Get.self) == "Unknown option '--nope'")
        #expect(
            usageError(["--service", "a", "--service", "b", "v"], for: Get.self)
                == "Option '--service' given more than once"
        )
        #expect(usageError(["--json=yes", "v"], for: List.self) == "Option '--json' takes no value")
        #expect(usageError([], for: Get.self) == "Missing expected argument '<vault>'")
        #expect(usageError(["a.vault", "b.vault"], for: Get.self) == "Unexpected argument 'b.vault'")
    }

    /// After the program's first word, every word is the program's: its `--help` is not vaulttool's.
    @Test func passthrough_givesTheProgramItsOwnOptions() throws {
        let arguments = ["--vault", "v.vault", "printenv", "--help", "--", "x"]
        let parsed = try ParsedArguments(arguments, for: Run.self)
        #expect(parsed.values["--vault"] == ["v.vault"])
        #expect(parsed.positionals == ["printenv", "--help", "--", "x"])
        #expect(Array(ParsedArguments.optionWords(arguments, for: Run.self)) == ["--vault", "v.vault"])
        #expect(Array(ParsedArguments.optionWords(["--json", "--", "--help"], for: Get.self)) == ["--json"])
    }
}

@Suite("Option declarations")
struct OptionDeclarationTests {
    /// A group included with `specs:` declares those options only; the rest read as not given.
    @Test func aGroupWithoutAnOption_doesNotDeclareIt() {
        let names = GitMerge.options.flatMap(\.names)
        #expect(names.contains("--password-file"))
        #expect(!names.contains("--password-stdin"))
        #expect(Get.options.flatMap(\.names).contains("--password-stdin"))
    }

    @Test func arguments_areTheDeclaredOnesInOrder() {
        #expect(GitMerge.arguments.map(\.name) == ["ancestor", "ours", "theirs", "path"])
        #expect(GitMerge.arguments.map(\.optional) == [false, false, false, true])
    }

    /// Filling a command from parsed words fills its property wrappers: the declaration is the storage.
    @Test func filling_putsEachValueInItsProperty() throws {
        let parsed = try ParsedArguments(["--json", "--service", "db", "v.vault"], for: Get.self)
        let get = try Get.filled(from: parsed)
        #expect(get.json)
        #expect(get.path == "v.vault")
    }
}
