// vaulttool import: the import side of migrate, on its own.

/// `vaulttool import --password-file <file> --from <format> <file> <vault>`.
struct Import: Command {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import items from another password store's export.",
        discussion: """
            Reads a KeePassXC XML or CSV export, a Bitwarden unencrypted JSON export, or the generic
            JSON or CSV layout (Spec/cli.md), and adds every entry as a keychain item in one atomic
            write. Prints what was imported, what was skipped and why. Same as 'vaulttool migrate --from'.

            Entries with the same primary key in different groups (folders) are kept apart: each gets
            its group path as access group. When entries are still duplicates (of each other, or of
            items already in the vault without --replace), nothing is imported and the exit status is 1,
            unless --skip-duplicates is given. With --create a missing vault is created first, with the
            credential and KDF options of 'vaulttool create'.
            """
    )
    @Group var importOptions: ImportRunner.Options
    @Group var credentialOptions: CredentialOptions
    /// `--accept-rollback` is declared here, in help order, and read with the credentials.
    @Group(specs: KDFOptions.options + RollbackOption.specs) var kdfOptions: KDFOptions
    @Argument("file", help: "The export to read.") var file: String
    @Argument("vault", help: "The vault to add the items to (see --create).") var path: String

    private var runner: ImportRunner { get throws { try ImportRunner(importOptions, source: file, vault: path) } }

    func validate() throws { _ = try runner }

    func run() throws {
        try runner.run(credentials: credentialOptions)
    }
}
