// vaulttool git-setup: make a git repository merge and diff its vaults with vaulttool's drivers.

import FoundationEssentials
import VaultDelivery
import VaultIO

/// `vaulttool git-setup [--repo <dir>] [--dry-run] [--use-path] [<credential options>] [<pattern>...]`:
/// parses, calls ``GitRepositorySetup/apply()`` and prints what changed.
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

    func validate() throws {
        for pattern in patterns where !GitRepositorySetup.isPlainPattern(pattern) {
            throw UsageError(
                "The pattern '\(pattern)' cannot be written to .gitattributes; use one without spaces, quotes or '#'"
            )
        }
    }

    func run() throws {
        var setup = GitRepositorySetup(repository: repo, patterns: patterns, program: usePath ? "vaulttool" : program)
        setup.driverOptions = Self.driverOptions(credentialOptions, base: FileManager.default.currentDirectoryPath)
        setup.dryRun = dryRun
        let (top, changes) = try setup.apply()
        if changes.isEmpty {
            Output.out("\(top) is already set up for vault files; nothing changed.\n")
        } else {
            Output.out("\(dryRun ? "Would change" : "Changed") in \(top):\n" + changes.map { "  \($0)\n" }.joined())
        }
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

    /// This program's absolute path (`/proc/self/exe`), quoted for `sh`, so that git finds the
    /// same vaulttool whatever its PATH; plain `vaulttool` when it cannot be found.
    private var program: String {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return "vaulttool"
        }
        return GitRepositorySetup.shellQuoted(path)
    }
}
