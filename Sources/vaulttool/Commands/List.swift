// vaulttool list: the items of a vault, one per line, never a secret.

import VaultIO
import VaultImport

/// `vaulttool list --password-file <file> [--json] <vault>`.
struct List: Command {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the items of a vault, without their secrets.",
        discussion: """
            Options that name attributes keep only the items whose attributes are equal to them.
            With --salvage, a damaged item does not stop the listing: every readable item is listed,
            each damaged one is named on standard error, and the exit status is 4.
            """,
        aliases: ["ls"]
    )
    @Flag("--json", help: "Print machine-readable output.") var json: Bool
    @Flag("--salvage", help: "List every readable item despite damaged ones.") var salvage: Bool
    @Group var selector: ItemSelector
    @Group var credentialOptions: CredentialOptions
    @Argument(.vault) var path: String

    struct Report: Encodable {
        var items: [GenericJSONLayout.Item]
        var unavailable: Int
        /// With `--salvage`: the damaged items.
        var damaged: [DamageReport.Record]?
    }

    func run() throws {
        let snapshot = try VaultAccess.snapshot(path, credentialOptions)
        guard json else { return try table(snapshot) }
        guard salvage else { return try jsonReport(snapshot) }
        // One pass: the matching items, those this credential cannot open, and the damaged ones.
        let scan = try selector.scan(in: snapshot, includeSecrets: false, salvage: true)
        let records = scan.items.map { GenericJSONLayout.Item($0, includeSecret: false) }.sorted {
            ($0.id ?? "") < ($1.id ?? "")
        }
        let damaged = scan.damaged.map(DamageReport.record)
        Output.out(try Output.json(Report(items: records, unavailable: scan.unavailable.count, damaged: damaged)))
        try DamageReport.end(scan.damaged, of: snapshot)
    }

    /// `--json` without `--salvage`: item objects are written inside the scan's chunks, then
    /// sorted by ID (ItemJSONWriter writes the bytes JSONEncoder would, faster).
    private func jsonReport(_ snapshot: VaultSnapshot) throws {
        let scan = try selector.scan(
            in: snapshot,
            includeSecrets: false,
            salvage: false,
            into: GenericJSONWriter.Items.self
        )
        GenericJSONWriter.writeListReport(scan.chunks, unavailable: scan.unavailable.count) { Output.outBytes($0) }
    }

    /// The table: rows are escaped and measured inside the scan's chunks, on every processor.
    private func table(_ snapshot: VaultSnapshot) throws {
        let scan = try selector.scan(in: snapshot, includeSecrets: false, salvage: salvage, into: ItemTable.Rows.self)
        Output.outBytes(ItemTable.bytes(scan.chunks))
        let unavailable = scan.unavailable.count
        if unavailable > 0 {
            Output.err("Note: \(unavailable) items cannot be opened with this credential or on this device.\n")
        }
        try DamageReport.end(scan.damaged, of: snapshot)
    }
}
