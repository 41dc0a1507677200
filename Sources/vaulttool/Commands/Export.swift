// vaulttool export: items and secrets as plaintext JSON in the generic layout.

import VaultIO
import VaultImport

/// `vaulttool export --password-file <file> [--output <file>] <vault>`.
struct Export: Command {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write items and their secrets as plaintext JSON.",
        discussion: """
            Writes the generic JSON layout that 'vaulttool import --from json' reads (Spec/cli.md).
            Items of the ThisDeviceOnly classes are left out unless --include-device-only is given.
            The output is not encrypted: keep it safe and delete it when done.
            With --salvage, damaged items are left out and named on standard error, every readable
            item is written, and the exit status is 4.
            """
    )
    @Option("--output", shortName: "-o", valueName: "file", help: "Write to a new file (mode 0600).")
    var output: String?
    @Flag("--include-device-only", help: "Include ThisDeviceOnly items.") var includeDeviceOnly: Bool
    @Flag("--salvage", help: "Export every readable item despite damaged ones.") var salvage: Bool
    @Group var selector: ItemSelector
    @Group var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        let scan = try selector.scan(in: snapshot, includeSecrets: true, salvage: salvage)
        let items = scan.items
        let kept = items.filter { includeDeviceOnly || !$0.entry.protectionClass.isDeviceBound }
        let records = kept.map { GenericJSONLayout.Item($0, includeSecret: true) }.sorted {
            ($0.id ?? "") < ($1.id ?? "")
        }
        var text = Array(try Output.json(GenericJSONLayout.Document(items: records)).utf8)
        defer { SecretMemory.wipe(&text) }
        Output.err("Warning: the export is plaintext; anyone who can read it can read every secret in it.\n")
        if items.count > kept.count {
            Output.err(
                "Note: \(items.count - kept.count) ThisDeviceOnly items left out (use --include-device-only).\n"
            )
        }
        if let output {
            try DurableFile.create(at: output, contents: text)
            Output.err("Exported \(records.count) items to \(output).\n")
        } else {
            Output.outBytes(text)
        }
        try DamageReport.end(scan.damaged, of: snapshot)
    }
}
