// vaulttool get: print one item's secret, and nothing else.

import VaultFormat

/// `vaulttool get --password-file <file> --service <service> --account <account> <vault>`.
struct Get: Command {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the secret of one item.",
        discussion: """
            Prints the raw secret to standard output, with no newline added. The options must
            select exactly one item; a missing item exits with status 2.
            """
    )
    static let options =
        [OptionSpec(names: ["--json"], valueName: nil, help: "Print the item and its secret as JSON.")]
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
        if selector.isEmpty {
            throw UsageError("Name the item with '--service', '--account', '--server' or another attribute")
        }
    }

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let item = try selector.single(in: snapshot, includeSecret: true)
        guard var bytes = item.secret?.copyBytes() else { throw ToolError("the item has no secret") }
        defer { CredentialOptions.wipe(&bytes) }
        if json {
            var record = ItemRecord(item, includeSecret: false)
            record.setSecret(bytes)
            Output.out(try Output.json(record))
        } else {
            Output.outBytes(bytes)
        }
    }
}
