// vaulttool: where passwords, key files and the device secret come from (never argv).

import FoundationEssentials
import Glibc
import VaultIO

/// The options that supply credentials, shared by every command that opens a vault.
///
/// Spec: Spec/cli.md, "Credentials".
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

    var passwordFile: String?
    var passwordStdin: Bool
    var passwordEnv: String?
    var passwordFileEnv: String?
    var keyFile: String?
    var deviceSecretFile: String?
    /// `--identity` or `VAULTTOOL_IDENTITY_FILE`: a recipient's identity file (Spec/format-v1.2.md).
    var identityFile: String?
    /// `--tpm2`: unseal a TPM2 keyslot (Spec/tpm2.md).
    var tpm2 = false
    /// `--tpm2-tcti`, else `VAULT_TPM2_TCTI`, else the kernel's device.
    var tpm2Device = TPM2Device.default
    /// The command's one TPM request, made at first use: its copies share the PIN and the TPM's
    /// refusal, so one command asks once and spends at most one failure (Spec/tpm2.md R-TPM-4).
    private let tpm2Request = TPM2Request()
    /// Whether `--identity` itself was given (not only `VAULTTOOL_IDENTITY_FILE`).
    var identityOptionGiven = false
    /// Whether `--device-secret-file` itself was given (not only `VAULTTOOL_DEVICE_SECRET_FILE`).
    var deviceSecretFileNamed = false
    /// The options to name when there is no terminal to ask on.
    var promptAlternatives = "--password-file, --password-stdin, --password-env or --password-file-env"
    /// Whether a sealed identity's passphrase may be asked for on the terminal; drivers and
    /// credential helpers, which run inside other programs, set `false` (R12-TXT-3).
    var mayPrompt = true
    /// `--accept-rollback`: given only to commands that write (see ``RollbackOption``).
    var acceptRollback = false
    /// The credential options given on the command line, in the order of their declaration, each
    /// with its last value (`""` for a flag): what git-setup passes on to the drivers, and how
    /// git-diff tells a named credential from the environment's device secret.
    private(set) var given: [(spec: OptionSpec, value: String)] = []

    init(_ parsed: ParsedArguments) throws {
        given = Self.specs.compactMap { spec in parsed.occurrences(of: spec).last.map { (spec, $0) } }
        acceptRollback = parsed[RollbackOption.flag]
        passwordFile = parsed[Self.passwordFileOption]
        passwordStdin = parsed[Self.passwordStdinFlag]
        passwordEnv = parsed[Self.passwordEnvOption]
        passwordFileEnv = parsed[Self.passwordFileEnvOption]
        keyFile = parsed[Self.keyFileOption]
        tpm2 = parsed[Self.tpm2Flag]
        if let tcti = parsed[Self.tpm2TCTIOption] { tpm2Device = TPM2Device(tcti: tcti) }
        deviceSecretFile =
            parsed[Self.deviceSecretFileOption] ?? environmentValue("VAULTTOOL_DEVICE_SECRET_FILE")
        identityOptionGiven = parsed[Self.identityOption] != nil
        deviceSecretFileNamed = parsed[Self.deviceSecretFileOption] != nil
        identityFile =
            parsed[Self.identityOption]
            ?? environmentValue("VAULTTOOL_IDENTITY_FILE").flatMap { $0.isEmpty ? nil : $0 }
        try Self.checkOneSource(
            [passwordFile != nil, passwordStdin, passwordEnv != nil, passwordFileEnv != nil],
            names: [
                Self.passwordFileOption.name, Self.passwordStdinFlag.name, Self.passwordEnvOption.name,
                Self.passwordFileEnvOption.name,
            ]
        )
    }

    /// Options for a second password (`passwd`'s new password): a file or an environment variable.
    init(passwordFile: String?, passwordEnv: String?, passwordFileEnv: String?) throws {
        self.passwordFile = passwordFile
        passwordStdin = false
        self.passwordEnv = passwordEnv
        self.passwordFileEnv = passwordFileEnv
        promptAlternatives = "--new-password-file, --new-password-env or --new-password-file-env"
        try Self.checkOneSource(
            [passwordFile != nil, passwordEnv != nil, passwordFileEnv != nil],
            names: ["--new-password-file", "--new-password-env", "--new-password-file-env"]
        )
    }

    /// Refuses more than one password source.
    private static func checkOneSource(_ given: [Bool], names: [String]) throws {
        guard given.filter({ $0 }).count > 1 else { return }
        let quoted = names.map { "'\($0)'" }
        throw UsageError("Use only one of \(quoted.dropLast().joined(separator: ", ")) and \(quoted.last!)")
    }

    /// Whether the password comes from standard input (which then cannot carry anything else).
    /// Whether no credential was named at all, by an option or its variable (then the commands
    /// that name no `<vault>` open the standard vault with this user's device secret).
    var namesNoCredential: Bool {
        !hasPasswordSource && keyFile == nil && deviceSecretFile == nil && identityFile == nil && !tpm2
    }

    /// These options with this user's device secret (``DeviceSecretFile/defaultPath``) when they
    /// name no credential and that file exists; `nil` otherwise. The one statement of "no
    /// credential named: this user's device secret", which `get` on the standard vault, the
    /// credential helpers and `secret-service` follow, as `Keychain.standard` does.
    var withUsersDeviceSecret: CredentialOptions? {
        guard namesNoCredential, let device = DeviceSecretFile.defaultPath,
            FileManager.default.fileExists(atPath: device)
        else { return nil }
        var options = self
        options.deviceSecretFile = device
        return options
    }

    /// Whether no credential option is on the command line (their environment variables aside).
    var namesNoOption: Bool {
        !hasPasswordSource && keyFile == nil && !deviceSecretFileNamed && !identityOptionGiven && !tpm2
    }

    var usesStdin: Bool { passwordStdin }

    /// Whether a password was asked for explicitly on the command line.
    var hasPasswordSource: Bool {
        passwordFile != nil || passwordStdin || passwordEnv != nil || passwordFileEnv != nil
    }

    /// Reads the credentials.
    ///
    /// Without a password option and without `--key-file`, the password is asked for on the
    /// terminal without echo (twice when `confirm` is set).
    func credentials(confirm: Bool = false, prompt: String = "Password") throws -> Credentials {
        var credentials = Credentials()
        if let keyFile {
            // Hashed as a stream: the key file's bytes are never held in memory all at once.
            credentials.keyFileDigest = try KeyFiles.read(keyFile)
        }
        // A device secret or an identity alone opens the vault: then there is nothing to prompt for.
        if hasPasswordSource || (keyFile == nil && deviceSecretFile == nil && identityFile == nil && !tpm2) {
            credentials.password = try password(confirm: confirm, prompt: prompt)
        }
        if tpm2 { credentials.tpm2 = tpm2Unlock }
        if let deviceSecretFile {
            credentials.deviceSecret = try Self.loadDeviceSecret(deviceSecretFile, tpm2: tpm2Device)
        }
        if let identityFile { credentials.identity = try Self.loadIdentity(identityFile, mayPrompt: mayPrompt) }
        return credentials
    }

    /// The TPM request of `--tpm2`: the PIN is read only when a keyslot needs one.
    var tpm2Unlock: TPM2Unlock {
        if let unlock = tpm2Request.unlock { return unlock }
        let mayPrompt = mayPrompt
        let unlock = TPM2Unlock(device: tpm2Device) { try Self.tpm2PIN(confirm: false, mayPrompt: mayPrompt) }
        tpm2Request.unlock = unlock
        return unlock
    }

    /// The variable naming a file that holds a TPM2 keyslot's PIN, for commands without a terminal.
    static let tpm2PINVariable = "VAULTTOOL_TPM2_PIN_FILE"

    /// A TPM2 PIN: from the file `VAULTTOOL_TPM2_PIN_FILE` names, else from a no-echo prompt
    /// (`confirm` asks twice, for a new one).
    static func tpm2PIN(confirm: Bool, mayPrompt: Bool = true) throws -> SecretBytes {
        try secretFromFileOrPrompt(
            variable: tpm2PINVariable,
            what: "PIN",
            neverPrompts: "the TPM2 keyslot needs its PIN",
            prompt: confirm ? "New TPM PIN" : "TPM PIN",
            confirm: confirm,
            mayPrompt: mayPrompt
        )
    }

    /// A short secret (a PIN, a passphrase) from the file that `variable` names, else from a
    /// no-echo prompt; one trailing newline dropped, never empty, wiped after the copy.
    private static func secretFromFileOrPrompt(
        variable: String,
        what: String,
        neverPrompts reason: String,
        prompt question: String,
        confirm: Bool,
        mayPrompt: Bool
    ) throws -> SecretBytes {
        var bytes: [UInt8]
        let file = environmentValue(variable) ?? ""
        if !file.isEmpty {
            bytes = try readFile(
                file,
                what: "\(what) file named by \(variable)",
                showPath: false,
                limit: KeyFiles.maximumPasswordByteCount
            )
        } else {
            guard mayPrompt else {
                throw ToolError(
                    "\(reason), and this command never prompts: set \(variable) to a file holding the \(what)",
                    exitCode: .usage
                )
            }
            bytes = try prompt(
                question,
                confirm: confirm,
                otherwise: "\(variable) (a file holding the \(what))"
            )
        }
        defer { SecretMemory.wipe(&bytes) }
        SecretMemory.trimNewline(&bytes)
        guard !bytes.isEmpty else { throw ToolError("the \(what) is empty", exitCode: .usage) }
        return SecretBytes(bytes: bytes, protection: .guarded)
    }

    /// Reads a device secret through the library, which refuses a file that is not a regular file
    /// of this user with mode 0600, or not 32 bytes (Spec/cli.md, "Credentials").
    static func loadDeviceSecret(_ path: String, tpm2: TPM2Device? = nil) throws -> DeviceSecret {
        try loadSecretFile(path, named: "the device secret", refusedWith: .invalidDeviceSecret) {
            try DeviceSecretFile.load(at: path, tpm2: tpm2)
        }
    }

    /// Runs `load` on one of this user's secret files (a device secret, an identity file) and
    /// words the library's refusals for the command line, the same way for every kind: refused
    /// (`refused`, or a symbolic link) is a usage error, a file that cannot be read an I/O failure.
    private static func loadSecretFile<T>(
        _ path: String,
        named noun: String,
        refusedWith refused: VaultIOError.Code,
        _ load: () throws -> T
    ) throws -> T {
        do {
            return try load()
        } catch let error as VaultIOError where error.code == refused {
            throw ToolError("\(noun) '\(path)' is refused: \(error.reason)", exitCode: .usage)
        } catch let error as VaultIOError where error.errno == Errno(rawValue: ELOOP) {
            throw ToolError(
                "\(noun) '\(path)' is refused: it is a symbolic link; give the file it points to",
                exitCode: .usage
            )
        } catch let error as VaultIOError where error.code == .system {
            throw ToolError(
                "cannot read \(noun) '\(path)': \(error.errno.map { "\($0)" } ?? error.description)",
                exitCode: .ioFailure
            )
        }
    }

    /// Reads an identity file through the library, which refuses a file that is not a regular file
    /// of this user with mode 0600 or holds no identity line (Spec/cli.md, "Recipients").
    /// The variable naming a file that holds the passphrase of sealed identity files (R12-TXT-3),
    /// for commands that run without a terminal (drivers, helpers, CI).
    static let identityPassphraseVariable = "VAULTTOOL_IDENTITY_PASSPHRASE_FILE"

    /// The passphrase of a sealed identity file: from the file `VAULTTOOL_IDENTITY_PASSPHRASE_FILE`
    /// names, else from a no-echo prompt (`confirm` asks twice, for a new one).
    static func identityPassphrase(for path: String, confirm: Bool = false, mayPrompt: Bool = true) throws
        -> SecretBytes
    {
        try secretFromFileOrPrompt(
            variable: identityPassphraseVariable,
            what: "passphrase",
            neverPrompts: "the identity file '\(path)' is sealed under a passphrase",
            prompt: "Passphrase for the identity \(path)",
            confirm: confirm,
            mayPrompt: mayPrompt
        )
    }

    static func loadIdentity(_ path: String, mayPrompt: Bool = true) throws -> RecipientIdentity {
        do {
            return try loadSecretFile(path, named: "the identity file", refusedWith: .invalidIdentity) {
                try IdentityFile.load(at: path) { try identityPassphrase(for: path, mayPrompt: mayPrompt) }
            }
        } catch let error as VaultFormatError where error.code == .wrongCredential {
            throw ToolError("wrong passphrase for the identity file '\(path)'", exitCode: .wrongCredential)
        }
    }

    /// The password from the first source given, or from a terminal prompt.
    func password(confirm: Bool, prompt: String) throws -> SecretBytes {
        var bytes: [UInt8]
        let limit = KeyFiles.maximumPasswordByteCount
        if let passwordFile {
            bytes = try Self.readFile(passwordFile, what: "password file", limit: limit)
        } else if let passwordEnv {
            bytes = try Self.passwordFromEnvironment(passwordEnv)
        } else if let passwordFileEnv {
            guard let path = environmentValue(passwordFileEnv), !path.isEmpty else {
                throw ToolError(
                    "environment variable \(passwordFileEnv) is not set; it must name a password file",
                    exitCode: .usage
                )
            }
            // The value is a path, but it is still never echoed: a user may have put the
            // password itself there. Name the variable instead.
            bytes = try Self.readFile(
                path,
                what: "password file named by \(passwordFileEnv)",
                showPath: false,
                limit: limit
            )
        } else if passwordStdin {
            bytes = try Self.readDescriptor(STDIN_FILENO, what: "password on standard input", limit: limit)
        } else {
            bytes = try Self.prompt(prompt, confirm: confirm, otherwise: promptAlternatives)
        }
        defer { SecretMemory.wipe(&bytes) }
        SecretMemory.trimNewline(&bytes)
        guard !bytes.isEmpty else { throw ToolError("the password is empty", exitCode: .usage) }
        return SecretBytes(bytes: bytes, protection: .guarded)
    }

    /// The password held by environment variable `name`, which is then removed from this
    /// process's environment so that no child process inherits it.
    ///
    /// A value that is the absolute path of an existing file is refused: before 0.2,
    /// `--password-env` named a password file, and that value must not silently become
    /// the password (for example of a new vault). The message names the variable, never its value.
    ///
    /// Spec: Spec/cli.md, "Credentials".
    static func passwordFromEnvironment(_ name: String) throws -> [UInt8] {
        guard let pointer = getenv(name), pointer.pointee != 0 else {
            throw ToolError(
                "environment variable \(name) is not set or empty; it must hold the password",
                exitCode: .usage
            )
        }
        let length = strlen(pointer)
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: pointer, byteCount: length) }
        if pointer.pointee == CChar(UInt8(ascii: "/")) && access(pointer, F_OK) == 0 {
            SecretMemory.wipe(&bytes)
            throw ToolError(
                "environment variable \(name) names a file, but '--password-env' takes the password itself; "
                    + "use '--password-file-env \(name)' to read the password from that file",
                exitCode: .usage
            )
        }
        explicit_bzero(pointer, length)
        unsetenv(name)
        return bytes
    }

    /// A prompt's label inside a sentence: its first letter lowered, unless the first word is an
    /// acronym ("TPM PIN"); the rest, a path included, as it is.
    private static func inSentence(_ label: String) -> String {
        let letters = Array(label.prefix(2))
        if letters.count == 2, letters.allSatisfy(\.isUppercase) { return label }
        return label.prefix(1).lowercased() + label.dropFirst()
    }

    /// Asks on the terminal; fails with a usage error when there is none.
    static func prompt(
        _ label: String,
        confirm: Bool,
        otherwise: String
    ) throws -> [UInt8] {
        guard var first = try Terminal.readHidden(prompt: "\(label): ") else {
            throw ToolError(
                "no \(inSentence(label)) given and no terminal to ask on; use \(otherwise)",
                exitCode: .usage
            )
        }
        if confirm {
            var second = try Terminal.readHidden(prompt: "Retype \(inSentence(label)): ") ?? []
            defer { SecretMemory.wipe(&second) }
            guard SecretMemory.equal(first, second) else {
                SecretMemory.wipe(&first)
                throw ToolError("the two entries differ; nothing was changed", exitCode: .usage)
            }
        }
        return first
    }

    // MARK: - Files

    /// Reads a whole file, mapping failures to one sentence.
    ///
    /// - Parameters:
    ///   - showPath: Whether messages quote `path`; `false` when the path came from
    ///     somewhere that may hold a secret by mistake (an environment variable).
    ///   - limit: The most bytes accepted; a longer input is a usage error (exit 64) whose
    ///     message gives the limit and never the content.
    static func readFile(
        _ path: String,
        what: String,
        showPath: Bool = true,
        limit: Int? = nil,
        why: String? = nil
    ) throws -> [UInt8] {
        let name = showPath ? "\(what) '\(path)'" : what
        do {
            return try SecretInput.read(path: path, limit: limit ?? .max)
        } catch {
            throw readFailure(error, what: name, limit: limit, why: why)
        }
    }

    /// Reads to the end of `descriptor` (``SecretInput``: no copy of a secret is left behind).
    static func readDescriptor(
        _ descriptor: Int32,
        what: String,
        limit: Int? = nil,
        why: String? = nil
    ) throws -> [UInt8] {
        do {
            return try SecretInput.read(descriptor: descriptor, limit: limit ?? .max)
        } catch {
            throw readFailure(error, what: what, limit: limit, why: why)
        }
    }

    /// The sentence for a read that failed: too large (exit 64), or the system's reason (exit 7).
    private static func readFailure(_ error: VaultIOError, what: String, limit: Int?, why: String?) -> ToolError {
        if error.code == .tooLarge, let limit {
            return ToolError(
                "the \(what) is larger than \(limit >> 10) KiB; " + (why ?? "a password is at most \(limit >> 10) KiB"),
                exitCode: .usage
            )
        }
        return ToolError(
            "cannot read the \(what): \(error.errno.map(\.description) ?? error.reason)",
            exitCode: .ioFailure
        )
    }

}

/// Holds the TPM request of one parsed command line, shared by every copy of its options.
private final class TPM2Request {
    var unlock: TPM2Unlock?
}
