// vaulttool get: print one item's secret, and nothing else.

import Foundation
import VaultFormat

/// `vaulttool get --password-file <file> --service <service> --account <account> <vault>`.
struct Get: Command {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the secret of one item.",
        discussion: """
            Prints the raw secret to standard output: with no newline added when standard output is
            a pipe or a file, and followed by a newline on a terminal. The options must select
            exactly one item; a missing item exits with status 2, several with status 1.
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
        let snapshot = try VaultAccess.snapshot(path, credentials: try credentialOptions.credentials())
        let item = try selector.single(in: snapshot, includeSecret: true)
        guard var bytes = item.secret?.copyBytes() else { throw ToolError("the item has no secret") }
        defer { CredentialOptions.wipe(&bytes) }
        if json {
            var record = ItemRecord(item, includeSecret: false)
            record.setSecret(bytes)
            Output.out(try Output.json(record))
        } else {
            Output.outBytes(bytes)
            // A person reading a terminal gets the prompt back on its own line; pipes get the bytes only.
            if Terminal.isTerminal(STDOUT_FILENO) { Output.out("\n") }
        }
    }
}
