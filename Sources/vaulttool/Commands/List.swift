// vaulttool list: the items of a vault, one per line, never a secret.

import VaultFormat

/// `vaulttool list --password-file <file> [--json] <vault>`.
struct List: Command {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the items of a vault, without their secrets.",
        discussion: "Options that name attributes keep only the items whose attributes are equal to them.",
        aliases: ["ls"]
    )
    static let options =
        [OptionSpec(names: ["--json"], valueName: nil, help: "Print machine-readable output.")]
        + ItemSelector.specs + ItemSelector.filterSpecs + CredentialOptions.specs
    static let arguments = [ArgumentSpec(name: "vault", help: "The vault file.")]

    let path: String
    let json: Bool
    let selector: ItemSelector
    let credentialOptions: CredentialOptions

    init(_ parsed: ParsedArguments) throws {
        path = parsed.positional(0)!
        json = parsed.flag("--json")
        selector = try ItemSelector(parsed)
        credentialOptions = try CredentialOptions(parsed)
    }

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentials: try credentialOptions.credentials())
        // One pass: the matching items and the count of those this credential cannot open.
        let (items, unavailable) = try selector.selectCounting(in: snapshot)
        if json {
            // Sorted by ID; written by ItemJSONWriter (the bytes JSONEncoder would write, faster).
            let ids = items.map { $0.entry.itemID.description }
            let order = ids.indices.sorted { ids[$0] < ids[$1] }
            ItemJSONWriter.writeListReport(items, ids: ids, order: order, unavailable: unavailable) {
                Output.outBytes($0)
            }
            return
        }
        Output.outBytes(ItemTable.bytes(items))
        if unavailable > 0 {
            Output.err("Note: \(unavailable) items cannot be opened with this credential or on this device.\n")
        }
    }
}
