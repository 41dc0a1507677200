// vaulttool rm: remove items.

import VaultIO

/// `vaulttool rm --password-file <file> --service <service> --account <account> <vault>`.
struct Remove: Command {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove an item from a vault.",
        discussion: """
            The options must select exactly one item, or use --all to remove every item they select.
            A missing item exits with status 2. With --id alone, the item is removed by its ID
            without decrypting it: this removes a damaged record, or another device's item.
            """,
        aliases: ["remove"]
    )
    @Flag("--all", help: "Remove every matching item.") var all: Bool
    @Group var selector: ItemSelector
    @Group(specs: CredentialOptions.forWriting) var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    func validate() throws {
        if selector.isEmpty {
            throw UsageError("Name the item with '--service', '--account', '--server' or another attribute")
        }
    }

    func run() throws {
        let vault = try VaultAccess.vault(path, credentialOptions)
        if let id = selector.onlyID {
            // By ID alone: the index names the item, so its record is never decrypted (it may be damaged).
            try VaultAccess.write(vault) { txn in
                guard try txn.entry(for: id) != nil else {
                    throw ToolError("no item has ID \(id)", exitCode: .notFound)
                }
                try txn.remove(id: id)
            }
            Output.out("Removed 1 item.\n")
            return
        }
        let items = try vault.read { snapshot in
            if all { return try selector.select(in: snapshot) }
            // One item, and its copies in older spellings of its key (L-KC-15), so none answers after.
            let item = try selector.single(in: snapshot, includeSecret: false)
            return try Progress.run("Reading items") { try snapshot.spellings(of: item, matching: selector.query) }
        }
        guard !items.isEmpty else { throw ToolError("no item matches", exitCode: .notFound) }
        let removed = try VaultAccess.write(vault) { txn in
            try items.reduce(0) { count, item in
                try txn.remove(id: item.entry.itemID, expecting: .version(item.entry.version)) ? count + 1 : count
            }
        }
        Output.out("Removed \(removed) item\(removed == 1 ? "" : "s").\n")
    }
}
