// vaulttool run: start a program with secrets from the vault in its environment, masked in its output.

import VaultDelivery
import VaultIO

/// `vaulttool run [--vault <path>] [<credential options>] [--env NAME=REF ...] [--env-file <file> ...]
/// [--file NAME=REF ...] [--pristine] [--no-masking] -- <command> ...`.
///
/// Spec: Spec/cli.md, "run".
struct Run: Command {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program with secrets from the vault in its environment.",
        discussion: """
            Every variable of the program's environment whose value is a reference (Spec/cli.md
            4.4.2: vault://SERVICE/ACCOUNT, vault+https://ACCOUNT@HOST/...) is replaced by the
            item's secret, and so are the references of --env NAME=REF and of --env-file files
            (NAME=VALUE lines, # comments; other values are set as they are). --file NAME=REF sets
            NAME to the path of a sealed in-memory file holding the secret (/proc/self/fd/N: never
            on disk, readable many times). Every reference is resolved before the program starts:
            one that does not resolve stops the command (2: no item, 3: wrong credential, 64: not
            a valid reference), naming the variable and the reference, never a value.
            The secrets, in their raw, base64, percent-encoded and JSON-escaped forms, are replaced
            by <concealed by vault> in the program's output; on a terminal the program gets a
            pseudo-terminal, so colours and line editing work. --no-masking executes the program
            in vaulttool's place. --pristine passes only the resolved variables and a minimal PATH.
            The exit status is the program's (128+N when signal N ended it; 127: command not
            found; 126: not executable); SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are
            forwarded to it. The vault is --vault, else $VAULTTOOL_VAULT, else the standard vault;
            with the agent holding it ('vaulttool unlock'), runs need no credential.

            A CI job whose runner holds an identity publishes with a token it never sees:
              vaulttool run --vault ci.vault --identity "$RUNNER_IDENTITY" \\
                --env NPM_TOKEN=vault://registry/ci -- npm publish
            A web service reads its database password from its environment, as before:
              DB_PASSWORD=vault://db/app vaulttool run --vault /srv/app/app.vault \\
                --key-file /etc/app/key -- ./server --port 8080
            """
    )
    @Option(VaultLocation.option) var vault: String?
    @RepeatedOption(
        "--env",
        valueName: "name=ref",
        help: "Set variable <name> to the secret of reference <ref>.",
        completion: .none
    )
    var envOptions: [String]
    @RepeatedOption(
        "--env-file",
        valueName: "file",
        help: "Read NAME=VALUE lines; values that are references are resolved.",
        completion: .files
    )
    var envFiles: [String]
    @RepeatedOption(
        "--file",
        valueName: "name=ref",
        help: "Set variable <name> to the path of a sealed memory file holding the secret.",
        completion: .none
    )
    var fileOptions: [String]
    @Flag("--pristine", help: "Pass only the resolved variables and PATH=\(ChildProgram.minimalPath).")
    var pristine: Bool
    @Flag("--no-masking", help: "Do not mask the output; execute the program in vaulttool's place.")
    var noMasking: Bool
    @Group var credentialOptions: CredentialOptions
    @RemainingArguments("command", help: "The program to run, and its arguments.", passthrough: true, completion: .none)
    var command: [String]

    /// `--env NAME=REF`, parsed by ``validate()``.
    private(set) var envAssignments: [RunAssignment] = []
    /// `--file NAME=REF`, parsed by ``validate()``.
    private(set) var fileAssignments: [RunAssignment] = []

    mutating func validate() throws {
        envAssignments = try envOptions.map { try RunEnvironment.assignment($0, option: "--env", asFile: false) }
        fileAssignments = try fileOptions.map { try RunEnvironment.assignment($0, option: "--file", asFile: true) }
        var seen = Set<String>()
        for assignment in envAssignments + fileAssignments where !seen.insert(assignment.name).inserted {
            throw UsageError("The variable \(assignment.name) is given more than once with --env or --file")
        }
    }

    func run() throws {
        // The --password-env variable is a credential, never a reference, and never passed on.
        let plan = try RunPlan(
            command: command,
            inherited: RunEnvironment.inherited().filter { $0.name != credentialOptions.passwordEnv },
            envFiles: envFiles,
            assignments: envAssignments + fileAssignments,
            pristine: pristine
        )
        try plan.resolve { try VaultLocation.snapshot(vault, credentialOptions) }
        let status = try plan.start(masking: !noMasking)
        if status != 0 { throw ExitCode(rawValue: status) }
    }
}
