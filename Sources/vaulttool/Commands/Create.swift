// vaulttool create: a new, empty vault.

import VaultFormat
import VaultIO

/// `vaulttool create [--password-file <file>] [--kdf <preset>] <vault>`.
struct Create: Command {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a new, empty vault.",
        discussion: """
            The vault is opened by a password, a key file, or both together when both are given.
            Without a password option or --key-file, the password is asked for twice on the terminal.
            """
    )
    static let options =
        CredentialOptions.specs.filter { $0.names[0] != "--device-secret-file" } + KDFOptions.specs
    static let arguments = [ArgumentSpec(name: "vault", help: "The vault file to create; it must not exist.")]

    let path: String
    let credentialOptions: CredentialOptions
    let kdfOptions: KDFOptions

    init(_ parsed: ParsedArguments) throws {
        path = parsed.positional(0)!
        credentialOptions = try CredentialOptions(parsed)
        kdfOptions = try KDFOptions(parsed)
    }

    func run() throws {
        let (vault, line) = try Self.create(at: path, credentialOptions: credentialOptions, kdfOptions: kdfOptions)
        _ = vault
        Output.out(line)
    }

    /// Creates the vault at `path` the way `create` does (shared with `import --create`).
    ///
    /// - Returns: The vault, open for writing, and the `Created …` line to print.
    static func create(
        at path: String,
        credentialOptions: CredentialOptions,
        kdfOptions: KDFOptions
    ) throws -> (Vault, String) {
        let kdf = try kdfOptions.resolve()
        let credentials = try credentialOptions.credentials(confirm: true)
        let kind: Keyslot.Kind =
            credentials.keyFile == nil ? .password : credentials.password == nil ? .keyFile : .passwordAndKeyFile
        let configuration = try VaultAccess.configuration(kdf: kdf)
        let vault = try Progress.run("Creating \(path)") {
            try Vault.create(at: path, credentials: credentials, keyslots: [kind], configuration: configuration)
        }
        let cost = kind.usesPassword ? ", \(KDFOptions.describe(kdf))" : ""
        return (vault, "Created \(vault.path) (keyslot: \(kind)\(cost)).\n")
    }
}
