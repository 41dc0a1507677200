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

    struct Report: Encodable {
        var items: [ItemRecord]
        var unavailable: Int
    }

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
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let items = try selector.select(in: snapshot)
        let unavailable = snapshot.index.count - (try ItemSelector.all.select(in: snapshot).count)
        if json {
            let records = items.map { ItemRecord($0, includeSecret: false) }.sorted { ($0.id ?? "") < ($1.id ?? "") }
            Output.out(try Output.json(Report(items: records, unavailable: unavailable)))
            return
        }
        Output.out(ItemTable.text(items))
        if unavailable > 0 {
            Output.err("Note: \(unavailable) items cannot be opened with this credential or on this device.\n")
        }
    }
}
