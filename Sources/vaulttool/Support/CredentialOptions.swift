// vaulttool: the credential options, declared once and read into VaultIO's CredentialSources.

import VaultIO

/// The options that supply credentials, shared by every command that opens a vault: they name
/// the ``CredentialSources`` that VaultIO reads (never a secret on the command line). The
/// sources' properties read through this group (`options.keyFile`).
///
/// Spec: Spec/cli.md, "Credentials".
@dynamicMemberLookup
struct CredentialOptions: OptionGroup {
    static let passwordFileOption = Option(
        "--password-file",
        valueName: "file",
        help: "Read the password from a file (one trailing newline dropped)."
    )
    static let passwordStdinFlag = Flag(
        "--password-stdin",
        help: "Read the password from standard input (one trailing newline dropped)."
    )
    static let passwordEnvOption = Option(
        "--password-env",
        valueName: "name",
        help: "The password is the value of environment variable <name>."
    )
    static let passwordFileEnvOption = Option(
        "--password-file-env",
        valueName: "name",
        help: "Read the password from the file named by environment variable <name>."
    )
    static let keyFileOption = Option(
        "--key-file",
        valueName: "file",
        help: "Use a key file as (part of) the credential."
    )
    static let deviceSecretFileOption = Option(
        "--device-secret-file",
        valueName: "file",
        help: "This machine's 32-byte device secret."
    )
    static let identityOption = Option(
        "--identity",
        valueName: "file",
        help: "An identity file (format 1.2 recipients)."
    )
    static let tpm2Flag = Flag(
        "--tpm2",
        help: "Unseal a TPM2 keyslot with this machine's TPM (PIN from VAULTTOOL_TPM2_PIN_FILE or a prompt)."
    )
    static let tpm2TCTIOption = Option(
        "--tpm2-tcti",
        valueName: "tcti",
        help: "The TPM to use (default $VAULT_TPM2_TCTI, else device:/dev/tpmrm0)."
    )

    /// The group's declarations, in help order.
    static let specs = [
        passwordFileOption.spec, passwordStdinFlag.spec, passwordEnvOption.spec, passwordFileEnvOption.spec,
        keyFileOption.spec, deviceSecretFileOption.spec, identityOption.spec, tpm2Flag.spec, tpm2TCTIOption.spec,
    ]

    /// The group without `excluded`, for a command that cannot take those options.
    static func specs(without excluded: OptionSpec...) -> [OptionSpec] {
        specs.filter { spec in !excluded.contains { $0.names == spec.names } }
    }

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
    var identityOptionGiven = false
    /// Whether `--device-secret-file` itself was given (not only `VAULTTOOL_DEVICE_SECRET_FILE`).
    var deviceSecretFileNamed = false
    /// `--accept-rollback`: given only to commands that write (see ``RollbackOption``).
    var acceptRollback = false
    /// The credential options given on the command line, in the order of their declaration, each
    /// with its last value (`""` for a flag): what git-setup passes on to the drivers, and how
    /// git-diff tells a named credential from the environment's device secret.
    private(set) var given: [(spec: OptionSpec, value: String)] = []

    subscript<T>(dynamicMember keyPath: WritableKeyPath<CredentialSources, T>) -> T {
        get { sources[keyPath: keyPath] }
        set { sources[keyPath: keyPath] = newValue }
    }

    subscript<T>(dynamicMember keyPath: KeyPath<CredentialSources, T>) -> T { sources[keyPath: keyPath] }

    init(_ parsed: ParsedArguments) throws {
        given = Self.specs.compactMap { spec in parsed.occurrences(of: spec).last.map { (spec, $0) } }
        acceptRollback = parsed[RollbackOption.flag]
        let passwords: [CredentialSources.Password?] = [
            parsed[Self.passwordFileOption].map { .file($0) }, parsed[Self.passwordStdinFlag] ? .standardInput : nil,
            parsed[Self.passwordEnvOption].map { .environment($0) },
            parsed[Self.passwordFileEnvOption].map { .fileNamedByEnvironment($0) },
        ]
        try Self.checkOneSource(
            passwords.map { $0 != nil },
            names: [
                Self.passwordFileOption.name, Self.passwordStdinFlag.name, Self.passwordEnvOption.name,
                Self.passwordFileEnvOption.name,
            ]
        )
        sources.password = passwords.compactMap { $0 }.first
        sources.keyFile = parsed[Self.keyFileOption]
        sources.tpm2 = parsed[Self.tpm2Flag]
        if let tcti = parsed[Self.tpm2TCTIOption] { sources.tpm2Device = TPM2Device(tcti: tcti) }
        sources.deviceSecretFile =
            parsed[Self.deviceSecretFileOption] ?? environmentValue("VAULTTOOL_DEVICE_SECRET_FILE")
        identityOptionGiven = parsed[Self.identityOption] != nil
        deviceSecretFileNamed = parsed[Self.deviceSecretFileOption] != nil
        sources.identityFile =
            parsed[Self.identityOption]
            ?? environmentValue("VAULTTOOL_IDENTITY_FILE").flatMap { $0.isEmpty ? nil : $0 }
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
