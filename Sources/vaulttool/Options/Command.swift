// vaulttool: the command protocol and its configuration.

/// What a command is called and how it describes itself in help.
struct CommandConfiguration {
    /// The word that selects the command.
    var commandName: String
    /// One sentence for `OVERVIEW:` and the command list.
    var abstract: String
    /// Extra paragraphs after the overview.
    var discussion: String = ""
    /// Other words that select the command.
    var aliases: [String] = []
}

/// A named option (`--json`, `--password-file <file>`).
struct OptionSpec {
    /// Every spelling, long form first (`--password-file`, `-p`).
    var names: [String]
    /// The value's placeholder, or `nil` for a flag.
    var valueName: String?
    /// One line of help.
    var help: String
    /// Whether the option may repeat.
    var repeats = false
    /// What shells offer for the value.
    var completion = Completion.automatic
}

/// A positional argument.
struct ArgumentSpec {
    /// The placeholder, shown as `<name>`.
    var name: String
    /// One line of help.
    var help: String
    /// Whether it may be left out.
    var optional = false
    /// What shells offer for it.
    var completion = Completion.automatic
    /// Whether it takes every remaining word (the last argument only): `<name> ...`, or
    /// `[<name> ...]` when it is also optional.
    var repeats = false
    /// Whether the options end at its first word (the last argument only, with `repeats`): the
    /// words that follow belong to another program (`vaulttool run -- <command> ...`), as for
    /// swift-argument-parser's `.captureForPassthrough`.
    var passthrough = false
}

/// What a shell completes for an option's value or an argument. `completions` derives its
/// scripts from these declarations, so new commands and options are picked up.
enum Completion: Equatable {
    /// File names for arguments and for values named `<file>`; nothing for other values.
    case automatic
    /// Nothing (free text such as a service name).
    case none
    /// File names.
    case files
    /// One of these words.
    case values([String])
    /// A subcommand name.
    case subcommands
}

/// A subcommand of `vaulttool`: one type per command, one file per type.
///
/// Its options and arguments are its properties, declared once with the property wrappers of
/// Options/OptionKeys.swift; checks that involve several of them, and values derived from them,
/// go in ``validate()``, which runs once every property is filled.
///
/// ```swift
/// struct Show: Command {
///     static let configuration = CommandConfiguration(commandName: "show", abstract: "…")
///     @Flag("--json", help: "Print machine-readable output.") var json: Bool
///     @Group var credentials: CredentialOptions
///     @Argument(.vault) var path: String
///     func run() throws { … }
/// }
/// ```
protocol Command: Declared {
    /// Names and help text.
    static var configuration: CommandConfiguration { get }
    /// Does the work; throws ``ToolError`` or library errors, which `main` maps to exit codes.
    mutating func run() throws
}

/// Process exit statuses. Spec: Spec/cli.md, "Exit status".
struct ExitCode: Error, Equatable {
    let rawValue: Int32
    static let success = ExitCode(rawValue: 0)
    /// An operation failed for a reason not listed below.
    static let failure = ExitCode(rawValue: 1)
    /// The item asked for does not exist.
    static let notFound = ExitCode(rawValue: 2)
    /// No keyslot opens with the credentials given.
    static let wrongCredential = ExitCode(rawValue: 3)
    /// The file is damaged, tampered with, or not a vault.
    static let damaged = ExitCode(rawValue: 4)
    /// The file needs a newer vaulttool.
    static let unsupported = ExitCode(rawValue: 5)
    /// Another program holds the vault, or changed it under us.
    static let busy = ExitCode(rawValue: 6)
    /// A file-system call failed.
    static let ioFailure = ExitCode(rawValue: 7)
    /// The command line is wrong (sysexits `EX_USAGE`).
    static let usage = ExitCode(rawValue: 64)
}

/// A command-line mistake: printed with the usage line and exit status 64.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// An operation failure with its own sentence and exit status.
struct ToolError: Error {
    let message: String
    let exitCode: ExitCode
    init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }
}
