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
    static let options = ImportRunner.specs + CredentialOptions.specs + KDFOptions.specs + RollbackOption.specs
    static let arguments = [fileArgument.spec, vault.spec]

    static let fileArgument = Argument("file", help: "The export to read.")
    static let vault = Argument("vault", help: "The vault to add the items to (see --create).")

    let runner: ImportRunner
    let credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        runner = try ImportRunner(parsed, source: parsed[Self.fileArgument], vault: parsed[Self.vault])
        credentialOptions = try CredentialOptions(parsed)
    }

    func run() throws {
        try runner.run(credentials: credentialOptions)
    }
}
