// vaulttool keygen: create a recipient identity (format 1.2) and print its public key.

import VaultIO

/// `vaulttool keygen <identity>` and `vaulttool keygen --recipient-of <identity>`.
struct Keygen: Command {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create an identity file for opening vaults as a recipient.",
        discussion: """
            Writes a new X25519 identity to <identity> (created with mode 0600; an existing file is never
            replaced) and prints its public key, VAULT-RECIPIENT-1:..., on standard output. Share the
            public key: 'vaulttool recipients add --recipient <key>' lets its holder open a vault with
            '--identity <identity>'. With --recipient-of, prints the public key of an existing identity.
            With --passphrase, the identity is sealed under a passphrase (Argon2id, as a password
            keyslot): asked twice on the terminal, or read from the file VAULTTOOL_IDENTITY_PASSPHRASE_FILE
            names; every command that reads the identity then asks for it the same way.
            """
    )
    @Flag("--recipient-of", help: "Print the public key of an existing identity.") var show: Bool
    @Flag("--passphrase", help: "Seal the new identity under a passphrase.") var sealed: Bool
    @Argument("identity", help: "The identity file.") var path: String

    func validate() throws {
        if show && sealed { throw UsageError("'--passphrase' applies to a new identity, not to '--recipient-of'") }
    }

    func run() throws {
        if show {
            Output.out("\(try CredentialOptions.terminal.loadIdentity(path).recipient)\n")
            return
        }
        let identity: RecipientIdentity
        do {
            if sealed {
                let passphrase = try CredentialOptions.terminal.identityPassphrase(for: path, confirm: true)
                identity = try IdentityFile.generate(at: path, passphrase: passphrase)
            } else {
                identity = try IdentityFile.generate(at: path)
            }
        } catch let error as VaultIOError where error.code == .alreadyExists {
            throw ToolError("a file already exists at '\(path)'; an identity file is never overwritten")
        }
        Output.err("vaulttool: created the identity \(path) (mode 0600); keep it secret. Its public key:\n")
        Output.out("\(identity.recipient)\n")
    }
}
