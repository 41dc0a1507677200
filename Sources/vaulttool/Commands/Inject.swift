// vaulttool inject: a template with `{{ vault://… }}` references rendered with their secrets.

import Glibc
import VaultDelivery
import VaultIO

/// `vaulttool inject [--vault <path>] [-i <template>] [-o <file>] [--dry-run]`.
struct Inject: Command {
    static let configuration = CommandConfiguration(
        commandName: "inject",
        abstract: "Render a template, replacing {{ vault://… }} references with secrets.",
        discussion: """
            Reads the template from --in-file or standard input and replaces each {{ REFERENCE }}
            (Spec/cli.md 4.4.2: vault://SERVICE/ACCOUNT, vault+https://ACCOUNT@HOST/...) with the
            secret's bytes, exactly: no newline is added or removed, and every other byte of the
            template is kept. Other {{ ... }} text is left as it is. Every reference is resolved
            before anything is written: one that does not resolve stops the command (exit 2 for a
            missing item, 64 for a malformed reference) and names its line, never a value.
            --out-file writes the result atomically to a file of mode 0600 (a file already there
            is replaced whole, never partly written); without it the result goes to standard
            output, which refuses a secret holding control characters or bytes that are not
            UTF-8 when it is a terminal. --dry-run lists the references without opening the vault.

            A template config.yml.tmpl rendered at deploy time may hold
              database:
                password: "{{ vault://db/app }}"
            and a CI job can check it with --dry-run, which needs no credentials.
            """
    )
    @Option("--in-file", shortName: "-i", valueName: "file", help: "The template (default: standard input).")
    var input: String?
    @Option(
        "--out-file",
        shortName: "-o",
        valueName: "file",
        help: "Write the result to this regular file atomically, mode 0600 (default, or '-': standard output)."
    )
    var output: String?
    @Flag("--dry-run", help: "List the references; open no vault, write nothing.") var dryRun: Bool
    @Option(VaultLocation.option) var vault: String?
    @Group var credentialOptions: CredentialOptions
    /// The largest template read: a config file, not a data set.
    static let templateLimit = 16 << 20

    func run() throws {
        let why = "a template is at most \(Self.templateLimit >> 20) MiB"
        let bytes =
            try input.map { try SecretInput.read("template", at: $0, limit: Self.templateLimit, why: why) }
            ?? SecretInput.read("template", from: STDIN_FILENO, limit: Self.templateLimit, why: why)
        let template = Template(bytes)
        _ = try template.references()
        if dryRun {
            for placeholder in template.placeholders {
                Output.out("\(placeholder.line):\(placeholder.column): \(TerminalText.escaped(placeholder.text))\n")
            }
            return
        }
        var secrets = try template.secrets { try VaultLocation.snapshot(vault, credentialOptions) }
        defer { for index in secrets.indices { SecretMemory.wipe(&secrets[index]) } }
        var rendered = template.rendered(secrets)
        defer { SecretMemory.wipe(&rendered) }
        if let output, output != "-" { return try Self.write(rendered, to: output) }
        if Terminal.isTerminal(STDOUT_FILENO), let index = secrets.firstIndex(where: { !TerminalText.isPrintable($0) })
        {
            throw ToolError(
                "the secret of '\(TerminalText.escaped(template.placeholders[index].text))' (line "
                    + "\(template.placeholders[index].line)) holds control characters or bytes that are not UTF-8, "
                    + "and standard output is a terminal; write to a file with --out-file"
            )
        }
        Output.outBytes(rendered)
    }

    /// Writes the result atomically (``DurableFile/write(at:contents:mode:)``); a target that is
    /// not a regular file is the user's to correct (exit 64).
    private static func write(_ rendered: [UInt8], to output: String) throws {
        let result = Result { () throws(VaultIOError) in try DurableFile.write(at: output, contents: rendered) }
        guard case .failure(let error) = result else { return }
        guard error.code == .invalidPath else { throw error }
        throw ToolError("'\(output)' cannot be written: \(error.reason); nothing was written", exitCode: .usage)
    }
}
