// vaulttool: the credential options, declared once and read into VaultIO's CredentialSources.

import VaultIO

/// The options that supply credentials, shared by every command that opens a vault: they name
/// the ``CredentialSources`` that VaultIO reads (never a secret on the command line). The
/// sources' properties read through this group (`options.keyFile`).
///
/// Spec: Spec/cli.md, "Credentials".
@dynamicMemberLookup
struct CredentialOptions: OptionGroup {
    // The options, in help order; validate() reads them into `sources`.
    @Option("--password-file", valueName: "file", help: "Read the password from a file (one trailing newline dropped).")
    private var passwordFile: String?
    @Flag("--password-stdin", help: "Read the password from standard input (one trailing newline dropped).")
    private var passwordStdin: Bool
    @Option("--password-env", valueName: "name", help: "The password is the value of environment variable <name>.")
    private var passwordVariable: String?
    @Option(
        "--password-file-env",
        valueName: "name",
        help: "Read the password from the file named by environment variable <name>."
    )
    private var passwordFileVariable: String?
    @Option("--key-file", valueName: "file", help: "Use a key file as (part of) the credential.")
    private var keyFileGiven: String?
    @Option("--device-secret-file", valueName: "file", help: "This machine's 32-byte device secret.")
    private var deviceSecretFileGiven: String?
    @Option("--identity", valueName: "file", help: "An identity file (format 1.2 recipients).")
    private var identityGiven: String?
    @Flag(
        "--tpm2",
        help: "Unseal a TPM2 keyslot with this machine's TPM (PIN from VAULTTOOL_TPM2_PIN_FILE or a prompt)."
    )
    private var tpm2Given: Bool
    @Option(
        "--tpm2-tcti",
        valueName: "tcti",
        help: "The TPM to use (default $VAULT_TPM2_TCTI, else device:/dev/tpmrm0)."
    )
    private var tpm2TCTI: String?
    /// `--accept-rollback`: declared by the commands that write (see ``RollbackOption``), read here.
    @Flag(RollbackOption.flag, listed: false) var acceptRollback: Bool

    /// The options of a command that writes: these, then `--accept-rollback` (``RollbackOption``).
    static var forWriting: [OptionSpec] { options + RollbackOption.specs }

    /// The sources the options name; the terminal prompt asks for a password none of them gives.
    var sources = terminal
    /// No source, and the terminal to ask on (a key's passphrase, a new secret).
    /// A prompt that cannot read the terminal ends the command with status 1.
    static let terminal = CredentialSources(prompt: { text in
        do { return try CredentialSources.terminalPrompt(text) } catch let error as VaultIOError {
            throw ToolError(error.reason)
        }
    })
    /// Whether `--identity` itself was given (not only `VAULTTOOL_IDENTITY_FILE`).
    var identityOptionGiven: Bool { identityGiven != nil }
    /// Whether `--device-secret-file` itself was given (not only `VAULTTOOL_DEVICE_SECRET_FILE`).
    var deviceSecretFileNamed: Bool { deviceSecretFileGiven != nil }
    /// The credential options given on the command line, in the order of their declaration, each
    /// with its last value (`""` for a flag): what git-setup passes on to the drivers, and how
    /// git-diff tells a named credential from the environment's device secret.
    private(set) var given: [(spec: OptionSpec, value: String)] = []

    subscript<T>(dynamicMember keyPath: WritableKeyPath<CredentialSources, T>) -> T {
        get { sources[keyPath: keyPath] }
        set { sources[keyPath: keyPath] = newValue }
    }

    subscript<T>(dynamicMember keyPath: KeyPath<CredentialSources, T>) -> T { sources[keyPath: keyPath] }

    init() {}

    init(_ parsed: ParsedArguments) throws {
        self = try Self.filled(from: parsed)
        given = Self.options.compactMap { spec in parsed.occurrences(of: spec).last.map { (spec, $0) } }
        try validate()
    }

    mutating func validate() throws {
        let passwords: [CredentialSources.Password?] = [
            passwordFile.map { .file($0) }, passwordStdin ? .standardInput : nil,
            passwordVariable.map { .environment($0) }, passwordFileVariable.map { .fileNamedByEnvironment($0) },
        ]
        try Self.checkOneSource(
            passwords.map { $0 != nil },
            names: [_passwordFile.name, _passwordStdin.name, _passwordVariable.name, _passwordFileVariable.name]
        )
        sources.password = passwords.compactMap { $0 }.first
        sources.keyFile = keyFileGiven
        sources.tpm2 = tpm2Given
        if let tpm2TCTI { sources.tpm2Device = TPM2Device(tcti: tpm2TCTI) }
        sources.deviceSecretFile = deviceSecretFileGiven ?? environmentValue("VAULTTOOL_DEVICE_SECRET_FILE")
        sources.identityFile =
            identityGiven ?? environmentValue("VAULTTOOL_IDENTITY_FILE").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Options for a second password (`passwd`'s new password): a file or an environment variable.
    init(passwordFile: String?, passwordEnv: String?, passwordFileEnv: String?) throws {
        try Self.checkOneSource(
            [passwordFile != nil, passwordEnv != nil, passwordFileEnv != nil],
            names: ["--new-password-file", "--new-password-env", "--new-password-file-env"]
        )
        sources.password =
            passwordFile.map { .file($0) } ?? passwordEnv.map { .environment($0) }
            ?? passwordFileEnv.map { .fileNamedByEnvironment($0) }
        sources.promptAlternatives = "--new-password-file, --new-password-env or --new-password-file-env"
    }

    /// Refuses more than one password source.
    private static func checkOneSource(_ given: [Bool], names: [String]) throws {
        guard given.filter({ $0 }).count > 1 else { return }
        let quoted = names.map { "'\($0)'" }
        throw UsageError("Use only one of \(quoted.dropLast().joined(separator: ", ")) and \(quoted.last!)")
    }

    /// `--password-env`'s variable: a credential, never passed on to a child.
    var passwordEnv: String? {
        if case .environment(let name)? = sources.password { return name }
        return nil
    }

    /// Whether the password comes from standard input (which then cannot carry anything else).
    var usesStdin: Bool { sources.password == .standardInput }

    /// Whether no credential option is on the command line (their environment variables aside).
    var namesNoOption: Bool {
        !sources.hasPasswordSource && sources.keyFile == nil && !deviceSecretFileNamed && !identityOptionGiven
            && !sources.tpm2
    }

    /// These options with this user's device secret when they name no credential and that file
    /// exists (``CredentialSources/withUsersDeviceSecret``); `nil` otherwise.
    var withUsersDeviceSecret: CredentialOptions? {
        guard let withDevice = sources.withUsersDeviceSecret else { return nil }
        var options = self
        options.sources = withDevice
        return options
    }

    /// The password alone (``CredentialSources/password(confirm:prompt:)``).
    func password(confirm: Bool, prompt: String) throws -> SecretBytes {
        try sources.password(confirm: confirm, prompt: prompt)
    }

    /// Reads the credentials (``CredentialSources/credentials(confirm:prompt:)``).
    func credentials(confirm: Bool = false, prompt: String = "Password") throws -> Credentials {
        try sources.credentials(confirm: confirm, prompt: prompt)
    }
}
