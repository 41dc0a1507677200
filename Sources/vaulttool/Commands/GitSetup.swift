// vaulttool git-setup: make a git repository merge and diff its vaults with vaulttool's drivers.

import FoundationEssentials
import Glibc
import VaultIO

/// `vaulttool git-setup [--repo <dir>] [--dry-run] [--use-path] [<credential options>] [<pattern>...]`.
///
/// Writes `.gitattributes` (`<pattern> -text merge=vault diff=vault`), the repository's local git config
/// (the merge driver, the textconv driver, no textconv cache) and `.gitignore` lines for a killed
/// writer's leftovers. Every step is idempotent: a line or value already there is left alone,
/// and existing lines are never removed or reordered.
///
/// Spec: Spec/cli.md, "git-setup".
struct GitSetup: Command {
    static let configuration = CommandConfiguration(
        commandName: "git-setup",
        abstract: "Set a git repository up to merge and diff vault files with vaulttool.",
        discussion: """
            For each pattern (default *.vault) adds '<pattern> -text merge=vault diff=vault' to .gitattributes
            and '<pattern>.lock' and the atomic writer's '.<name>.tmp-*' to .gitignore, and sets the
            repository's own config: merge.vault.name, merge.vault.driver ('vaulttool git-merge %O %A %B %P'),
            diff.vault.textconv ('vaulttool git-diff') and diff.vault.cachetextconv false. Lines and
            values already there are kept; running it again changes nothing. Credential options given
            here are written into both driver commands (file paths made absolute; never a password).
            The drivers run this program by its absolute path unless --use-path is given.
            """
    )
    @Option(
        "--repo",
        valueName: "dir",
        help: "A directory inside the repository (default: the current directory).",
        completion: .files
    )
    var repoOption: String?
    @Flag("--dry-run", help: "Print what would change; change nothing.") var dryRun: Bool
    @Flag("--use-path", help: "Write plain 'vaulttool' (looked up on PATH) instead of this program's absolute path.")
    var usePath: Bool
    /// Refuses two password sources, as every command does; the options given go to the drivers.
    @Group(specs: GitDiff.credentialSpecs) var credentialOptions: CredentialOptions
    @RemainingArguments(
        "pattern",
        help: "gitattributes patterns of the vault files (default: *.vault); repeatable.",
        optional: true,
        completion: .none
    )
    var givenPatterns: [String]

    var repo: String { repoOption ?? FileManager.default.currentDirectoryPath }
    var patterns: [String] { givenPatterns.isEmpty ? ["*.vault"] : givenPatterns }
    var driverOptions: [String] {
        Self.driverOptions(credentialOptions, base: FileManager.default.currentDirectoryPath)
    }

    func validate() throws {
        for pattern in patterns where !Self.isPlainPattern(pattern) {
            throw UsageError(
                "The pattern '\(pattern)' cannot be written to .gitattributes; use one without spaces, quotes or '#'"
            )
        }
    }

    // MARK: - What is written

    /// The `.gitattributes` line of a pattern.
    static func attributesLine(_ pattern: String) -> String { "\(pattern) -text merge=vault diff=vault" }

    /// The `.gitignore` lines of a pattern: its lock file, the atomic writer's temporary files
    /// (`.<vault>.tmp-<random>` next to the vault; Spec/cli.md section 8.1) and `backup`'s copies
    /// (`<vault>.backup-<time>`), which must not be committed beside the vault.
    static func ignoreLines(_ pattern: String) -> [String] {
        let slash = pattern.lastIndex(of: "/")
        let directory = slash.map { String(pattern[...$0]) } ?? ""
        let name = slash.map { String(pattern[pattern.index(after: $0)...]) } ?? pattern
        return ["\(pattern).lock", "\(directory).\(name).tmp-*", "\(pattern).backup-*"]
    }

    /// The local git config values, in the order they are set.
    func configValues(program: String) -> [(key: String, value: String)] {
        let options = driverOptions.map(Self.shellQuoted).joined(separator: " ")
        let suffix = options.isEmpty ? "" : " " + options
        // git expands %O, %A, %B, %L, %P and %% in a merge driver (not in textconv), also
        // inside quotes: a '%' of a path is written as '%%'.
        let merge = "\(program) git-merge\(suffix)".replacing("%", with: "%%")
        return [
            ("merge.vault.name", "vaulttool item-level merge of vault files"),
            ("merge.vault.driver", "\(merge) %O %A %B %P"),
            ("diff.vault.textconv", "\(program) git-diff\(suffix)"),
            ("diff.vault.cachetextconv", "false"),
        ]
    }

    /// The credential options given on this command line, to pass to the drivers, in the order
    /// of their declaration, with `<file>` values made absolute (git runs drivers from the top of
    /// the work tree, not from where git-setup ran). Only options given here count: a device
    /// secret from `VAULTTOOL_DEVICE_SECRET_FILE` is not written.
    static func driverOptions(_ credentials: CredentialOptions, base: String) -> [String] {
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: base + "/")).path
        }
        return credentials.given.filter { $0.spec.valueName != nil }.flatMap { spec, value in
            [spec.names[0], spec.valueName == "file" ? absolute(value) : value]
        }
    }

    // MARK: - Running

    func run() throws {
        let top = Text.trimmingNewlines(
            try Self.git(
                ["-C", repo, "rev-parse", "--show-toplevel"],
                failure: "'\(repo)' is not inside a git repository"
            )
        )
        var changes = [String]()
        let attributes = patterns.map(Self.attributesLine)
        changes += try update(top + "/.gitattributes", adding: attributes) { line, wanted in
            Self.attributesMatch(line, wanted)
        }
        changes += try update(top + "/.gitignore", adding: patterns.flatMap(Self.ignoreLines)) { line, wanted in
            Text.trimmingWhitespace(line) == wanted
        }
        for (key, value) in configValues(program: usePath ? "vaulttool" : Self.programPath()) {
            let current = try? Self.git(["-C", top, "config", "--local", "--get", key], failure: "")
            guard current.map(Text.trimmingNewlines) != value else { continue }
            if !dryRun { _ = try Self.git(["-C", top, "config", "--local", key, value], failure: "cannot set \(key)") }
            changes.append("git config \(key) \(value)")
        }
        let verb = dryRun ? "Would change" : "Changed"
        if changes.isEmpty {
            Output.out("\(top) is already set up for vault files; nothing changed.\n")
        } else {
            Output.out("\(verb) in \(top):\n" + changes.map { "  \($0)\n" }.joined())
        }
    }

    /// Appends each wanted line that `matches` finds in no existing line; returns what it added.
    private func update(_ file: String, adding wanted: [String], matches: (String, String) -> Bool) throws -> [String] {
        let name = lastPathComponent(file)
        var text = ""
        if FileManager.default.fileExists(atPath: file) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ToolError("cannot read \(file)", exitCode: .ioFailure)
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let missing = wanted.filter { line in !lines.contains { matches($0, line) } }
        guard !missing.isEmpty else { return [] }
        if !dryRun {
            if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
            text += missing.map { $0 + "\n" }.joined()
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
            } catch {
                throw ToolError("cannot write \(file): \(error)", exitCode: .ioFailure)
            }
        }
        return missing.map { "\(name): \($0)" }
    }

    /// Whether an existing `.gitattributes` line already gives `wanted`'s pattern both drivers.
    static func attributesMatch(_ line: String, _ wanted: String) -> Bool {
        let have = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let want = wanted.split(separator: " ")
        guard let pattern = have.first, pattern == want[0] else { return false }
        return want.dropFirst().allSatisfy { have.dropFirst().contains($0) }
    }

    /// A pattern that needs no quoting in `.gitattributes`.
    static func isPlainPattern(_ pattern: String) -> Bool {
        !pattern.isEmpty && !pattern.hasPrefix("#") && !pattern.hasPrefix("!")
            && !pattern.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\n" || $0 == "\r" })
    }

    /// This program's absolute path (`/proc/self/exe`), so that git finds the same vaulttool
    /// whatever its PATH; plain `vaulttool` when it cannot be found.
    static func programPath() -> String {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return "vaulttool"
        }
        return shellQuoted(path)
    }

    /// `word` as one word for `sh` (git runs drivers through the shell): as is when it holds only
    /// safe characters, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%")
        if !word.isEmpty && word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacing("'", with: "'\\''") + "'"
    }

    /// Runs `git arguments` (found on PATH, never through a shell) and returns its stdout;
    /// throws `failure` with git's own message when it exits non-zero.
    @discardableResult
    static func git(_ arguments: [String], failure: String) throws -> String {
        let run = try Subprocess.run(["git"] + arguments)
        if run.status == 127 {
            throw ToolError("cannot run git: it is not installed or not on PATH", exitCode: .ioFailure)
        }
        guard run.status == 0 else {
            let detail = String(decoding: run.error, as: UTF8.self).split(separator: "\n").first.map(String.init)
            throw ToolError(failure + (detail.map { " (git: \($0))" } ?? ""))
        }
        return String(decoding: run.output, as: UTF8.self)
    }
}
