// vault: setting a git repository up to merge and diff its vaults with vaulttool's drivers.

import FoundationEssentials
import Glibc

/// What `vaulttool git-setup` writes into a repository: `.gitattributes` lines
/// (`<pattern> -text merge=vault diff=vault`), the repository's local git config (the merge
/// driver, the textconv driver, no textconv cache) and `.gitignore` lines for a killed writer's
/// leftovers. Every step is idempotent: a line or value already there is left alone, and
/// existing lines are never removed or reordered.
///
/// ```swift
/// let setup = GitRepositorySetup(repository: ".", patterns: ["*.vault"], program: "vaulttool")
/// let (top, changes) = try setup.apply()
/// ```
///
/// Spec: Spec/cli.md, "git-setup".
public struct GitRepositorySetup: Sendable {
    /// A directory inside the repository.
    public var repository: String
    /// gitattributes patterns of the vault files.
    public var patterns: [String]
    /// The command the drivers run (a path, quoted for `sh`, or `vaulttool`).
    public var program: String
    /// Options the drivers are given (credential options, never a password), each word quoted.
    public var driverOptions: [String] = []
    /// Change nothing, only say what would change.
    public var dryRun = false

    /// A setup of `repository` for `patterns`, whose drivers run `program`.
    public init(repository: String, patterns: [String], program: String) {
        self.repository = repository
        self.patterns = patterns
        self.program = program
    }

    // MARK: - What is written

    /// The `.gitattributes` line of a pattern.
    public static func attributesLine(_ pattern: String) -> String { "\(pattern) -text merge=vault diff=vault" }

    /// The `.gitignore` lines of a pattern: its lock file, the atomic writer's temporary files
    /// (`.<vault>.tmp-<random>` next to the vault; Spec/cli.md section 8.1) and `backup`'s copies
    /// (`<vault>.backup-<time>`), which must not be committed beside the vault.
    public static func ignoreLines(_ pattern: String) -> [String] {
        let slash = pattern.lastIndex(of: "/")
        let directory = slash.map { String(pattern[...$0]) } ?? ""
        let name = slash.map { String(pattern[pattern.index(after: $0)...]) } ?? pattern
        return ["\(pattern).lock", "\(directory).\(name).tmp-*", "\(pattern).backup-*"]
    }

    /// The local git config values, in the order they are set.
    public var configValues: [(key: String, value: String)] {
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

    /// Whether an existing `.gitattributes` line already gives `wanted`'s pattern both drivers.
    static func attributesMatch(_ line: String, _ wanted: String) -> Bool {
        let have = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let want = wanted.split(separator: " ")
        guard let pattern = have.first, pattern == want[0] else { return false }
        return want.dropFirst().allSatisfy { have.dropFirst().contains($0) }
    }

    /// A pattern that needs no quoting in `.gitattributes`.
    public static func isPlainPattern(_ pattern: String) -> Bool {
        !pattern.isEmpty && !pattern.hasPrefix("#") && !pattern.hasPrefix("!")
            && !pattern.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\n" || $0 == "\r" })
    }

    /// `word` as one word for `sh` (git runs drivers through the shell): as is when it holds only
    /// safe characters, else in single quotes.
    public static func shellQuoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%")
        if !word.isEmpty && word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacing("'", with: "'\\''") + "'"
    }

    // MARK: - Applying

    /// Finds the repository's top and makes every change that is missing (none with ``dryRun``).
    ///
    /// - Returns: The top of the work tree, and one line per change made (or that would be made).
    /// - Throws: ``VaultDeliveryError``: ``VaultDeliveryError/Code/commandFailed`` when git refuses
    ///   (not a repository), ``VaultDeliveryError/Code/system`` when git cannot run or a file
    ///   cannot be read or written.
    public func apply() throws(VaultDeliveryError) -> (top: String, changes: [String]) {
        let top = Text.trimmingNewlines(
            try Self.git(
                ["-C", repository, "rev-parse", "--show-toplevel"],
                failure: "'\(repository)' is not inside a git repository"
            )
        )
        var changes = [String]()
        changes += try update(top + "/.gitattributes", adding: patterns.map(Self.attributesLine)) {
            Self.attributesMatch($0, $1)
        }
        changes += try update(top + "/.gitignore", adding: patterns.flatMap(Self.ignoreLines)) { line, wanted in
            Text.trimmingWhitespace(line) == wanted
        }
        for (key, value) in configValues {
            let current = try? Self.git(["-C", top, "config", "--local", "--get", key], failure: "")
            guard current.map(Text.trimmingNewlines) != value else { continue }
            if !dryRun { _ = try Self.git(["-C", top, "config", "--local", key, value], failure: "cannot set \(key)") }
            changes.append("git config \(key) \(value)")
        }
        return (top, changes)
    }

    /// Appends each wanted line that `matches` finds in no existing line; returns what it added.
    private func update(_ file: String, adding wanted: [String], matches: (String, String) -> Bool)
        throws(VaultDeliveryError) -> [String]
    {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        var text = ""
        if access(file, F_OK) == 0 {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw VaultDeliveryError(.system, "cannot read \(file)")
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
                throw VaultDeliveryError(.system, "cannot write \(file): \(error)")
            }
        }
        return missing.map { "\(name): \($0)" }
    }

    /// Runs `git arguments` (found on PATH, never through a shell) and returns its stdout;
    /// throws `failure` with git's own message when it exits non-zero.
    @discardableResult
    static func git(_ arguments: [String], failure: String) throws(VaultDeliveryError) -> String {
        let run = try Subprocess.run(["git"] + arguments)
        if run.status == 127 {
            throw VaultDeliveryError(.system, "cannot run git: it is not installed or not on PATH")
        }
        guard run.status == 0 else {
            let detail = String(decoding: run.error, as: UTF8.self).split(separator: "\n").first.map(String.init)
            throw VaultDeliveryError(.commandFailed, failure + (detail.map { " (git: \($0))" } ?? ""))
        }
        return String(decoding: run.output, as: UTF8.self)
    }
}
