// vaulttool create: a new, empty vault.

import Glibc
import VaultIO

/// `vaulttool create [--password-file <file>] [--kdf <preset>] <vault>`.
struct Create: Command {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new, empty vault.",
        discussion: """
            The vault is opened by a password, a key file, or both together when both are given.
            Without a password option or --key-file, the password is asked for twice on the terminal.
            --generate-key-file writes a new key file of 32 random bytes and uses it as --key-file
            would. A key file needs no password and has no work factor: anyone who holds its bytes
            opens the vault, so keep it as safe as the vault's password. A key file given with
            --key-file must have at least 32 bytes.
            """
    )
    // A new vault's first keyslot is a password or key file; a TPM2 keyslot is added to it later
    // (passwd --add-tpm2), so that the TPM is never the only way in (Spec/tpm2.md L-TPM-2).
    @Group(
        specs: CredentialOptions.options(without: "--device-secret-file", "--tpm2", "--tpm2-tcti")
    )
    var credentialOptions: CredentialOptions
    /// Where `--generate-key-file` writes the new key file.
    @Option(
        "--generate-key-file",
        valueName: "file",
        help: "Write a new key file of 32 random bytes (mode 0600; <file> must not exist)."
    )
    var generatedKeyFile: String?
    @Group var kdfOptions: KDFOptions
    @Option(
        "--format",
        valueName: "version",
        help: "The vault format: 3 (default) or 1.1, which vaulttools older than format 3 also read."
    )
    var formatName: String?
    @Argument("vault", help: "The vault file to create; it must not exist.") var path: String

    mutating func validate() throws {
        if generatedKeyFile != nil && credentialOptions.keyFile != nil {
            throw UsageError("Use only one of '--key-file' and '--generate-key-file'")
        }
        _ = try Self.format(formatName)
    }

    /// The format `--format` names.
    static func format(_ name: String?) throws(UsageError) -> NewVaultFormat {
        switch name {
        case nil, "3", "3.0": .version3
        case "1.1": .version1_1
        case let other?: throw UsageError("'--format' is 3 or 1.1, not '\(other)'")
        }
    }

    func run() throws {
        let (vault, line) = try Self.create(
            at: path,
            credentialOptions: credentialOptions,
            kdfOptions: kdfOptions,
            generatedKeyFile: generatedKeyFile,
            format: try Self.format(formatName)
        )
        _ = vault
        Output.out(line)
    }

    /// Creates the vault at `path` the way `create` does (shared with `import --create`).
    ///
    /// - Returns: The vault, open for writing, and the `Created …` line to print.
    static func create(
        at path: String,
        credentialOptions: CredentialOptions,
        kdfOptions: KDFOptions,
        generatedKeyFile: String? = nil,
        format: NewVaultFormat = .version3
    ) throws -> (Vault, String) {
        let kdf = try kdfOptions.resolve()
        var credentials: Credentials
        if let generatedKeyFile {
            credentials = Credentials()
            if credentialOptions.hasPasswordSource {
                credentials.password = try credentialOptions.password(confirm: true, prompt: "Password")
            }
            credentials.keyFileDigest = try KeyFileGenerator.generate(at: generatedKeyFile)
        } else {
            credentials = try credentialOptions.credentials(confirm: true)
            if let keyFile = credentials.keyFileDigest, let keyFilePath = credentialOptions.keyFile {
                try keyFile.checkForNewKeyslot(path: keyFilePath)
            }
        }
        let kind: Keyslot.Kind =
            !credentials.hasKeyFile ? .password : credentials.password == nil ? .keyFile : .passwordAndKeyFile
        var configuration = try VaultAccess.configuration(kdf: kdf)
        configuration.newVaultFormat = format
        let vault: Vault
        do {
            vault = try Progress.run("Creating \(path)") {
                try Vault.create(at: path, credentials: credentials, keyslots: [kind], configuration: configuration)
            }
        } catch {
            if let generatedKeyFile { unlink(generatedKeyFile) }  // no key file is left that opens nothing
            throw error
        }
        VaultAccess.warnAboutLocation(of: vault)
        let cost = kind.usesPassword ? ", \(KDFOptions.describe(kdf))" : ""
        var line = "Created \(vault.path) (keyslot: \(kind)\(cost)).\n"
        if let generatedKeyFile {
            line += "Wrote the key file \(generatedKeyFile) (32 random bytes); it opens the vault: keep it safe.\n"
        }
        return (vault, line)
    }
}
