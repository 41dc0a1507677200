// vaulttool get: print one item's secret, and nothing else.

import FoundationEssentials
import Glibc
import VaultIO
import VaultImport

/// `vaulttool get --password-file <file> --service <service> --account <account> <vault>`.
struct Get: Command {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the secret of one item.",
        discussion: """
            Prints the raw secret to standard output: with no newline added when standard output is
            a pipe or a file, and followed by a newline on a terminal. The options must select
            exactly one item; a missing item exits with status 2, several with status 1.
            --accessibility pins the protection class the caller expects: an item found with any
            other class is refused (status 1), since whoever holds only the vault's base key can
            put back an older copy of an item or swap its class.
            """
    )
    @Flag("--json", help: "Print the item and its secret as JSON.") var json: Bool
    @Group var selector: ItemSelector
    @Option("--accessibility", valueName: "class", help: "Refuse the item unless its protection class is <class>.")
    var accessibilityName: String?
    @Group var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String
    /// The protection class the caller expects (`--accessibility`), checked after the item is found.
    private(set) var expectedAccessibility: ProtectionClass?

    mutating func validate() throws {
        expectedAccessibility = try accessibilityName.map { try ItemSelector.parseAccessibility($0) }
        if selector.isEmpty {
            throw UsageError("Name the item with '--service', '--account', '--server' or another attribute")
        }
    }

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let item = try selector.single(in: snapshot, includeSecret: true)
        // A pin, not a filter: the item is found by its attributes, then refused when its class
        // differs, so a swapped class reads as an error instead of "no item matches".
        if let expectedAccessibility, item.entry.protectionClass != expectedAccessibility {
            throw ToolError(
                "the item's accessibility is \(item.entry.protectionClass), not \(expectedAccessibility) as expected; "
                    + "it was changed, possibly by someone holding only the vault's base key; nothing was printed"
            )
        }
        guard var bytes = item.secret?.copyBytes() else { throw ToolError("the item has no secret") }
        defer { SecretMemory.wipe(&bytes) }
        if json {
            var record = GenericJSONLayout.Item(item, includeSecret: false)
            record.setSecret(bytes)
            Output.out(try Output.json(record))
        } else {
            Output.outBytes(bytes)
            // A person reading a terminal gets the prompt back on its own line; pipes get the bytes only.
            if Terminal.isTerminal(STDOUT_FILENO) { Output.out("\n") }
        }
    }
}
