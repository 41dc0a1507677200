// vaulttool backup: a verified, durable copy of a vault file.

import VaultIO

/// `vaulttool backup [<credential options>] <vault> [<destination>]`.
struct BackupCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a vault to a new file, and check the copy.",
        discussion: """
            Copies the vault byte for byte to <destination> (default: <vault>.backup-<UTC time>,
            next to it), created new with mode 0600 and synced to disk, then reads the copy back and
            checks it: the same bytes, a sound header and layout, and with a credential also the
            header MAC and the index. An existing file is never replaced. Records are copied as they
            are, so a vault with a damaged item can be backed up before it is repaired.

            Recovering a damaged vault: 'vaulttool verify' names every damaged item; make a backup;
            'vaulttool list --salvage' and 'vaulttool export --salvage' read every other item;
            'vaulttool rm --id <id>' removes a damaged item without decrypting it. When the header
            or index is damaged, no item can be read: put a backup in place of the vault.
            """
    )
    @Group var credentialOptions: CredentialOptions
    @Argument("vault", help: "The vault file to copy.") var path: String
    @OptionalArgument("destination", help: "The new file (default: <vault>.backup-<UTC time>).") var destination:
        String?

    func run() throws {
        // A credential is optional here: without one the header and layout are still checked.
        // `--device-secret-file` is one, as for `inspect`; the environment's device secret alone
        // is not (it is set for everyday use).
        let credentials = credentialOptions.namesNoOption ? nil : try credentialOptions.credentials()
        let backup = try Progress.run("Copying \(path)") {
            try Vault.backup(of: path, to: destination, credentials: credentials)
        }
        let checked = backup.authenticated ? "header MAC and index authenticated" : "header and layout checked"
        Output.out(
            "Backed up \(path) (generation \(backup.generation), \(Output.count(backup.byteCount)) B) "
                + "to \(backup.path); \(checked).\n"
        )
    }
}
