// vaulttool inspect: everything the plain header shows, without a credential.

import FoundationEssentials
import Glibc
import VaultIO
import VaultImport

/// `vaulttool inspect [--json] [--items] <path>`.
struct Inspect: Command {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Inspect a vault file without decrypting it.",
        discussion: """
            Shows the format version, vault ID, creation time, generation, keyslots and their KDF cost,
            item and deletion counts and section sizes, and checks the file's structure. Needs no password.
            Without a credential these values are unauthenticated: anyone who can write the file can
            change them. With a credential, the header MAC is checked too (a wrong one exits 3).
            With --items and a credential, adds one line per item (never a secret).
            """
    )
    @Flag("--json", help: "Print machine-readable output.") var json: Bool
    @Flag("--items", help: "List the items too (needs a credential).") var items: Bool
    @Group var credentialOptions: CredentialOptions
    @Argument("path", help: "The vault file to inspect.") var path: String

    /// Whether a credential was named on the command line (then the header MAC is checked):
    /// `--device-secret-file` counts (it opens device keyslots), as for `backup`; the
    /// environment's device secret alone does not.
    private var credentialGiven: Bool { !credentialOptions.namesNoOption }

    func run() throws {
        var report = InspectReport(inspection: try VaultInspection(path: path) { describe($0).0 })
        if (items || credentialGiven) && report.inspection.structure.error == nil {
            // Opening the snapshot verifies the header MAC (R-HDR-6) and the index.
            let snapshot = try VaultAccess.snapshot(path, credentialOptions)
            guard report.inspection.authenticate(with: snapshot) else {
                throw ToolError("the vault changed while it was inspected; run again", exitCode: .busy)
            }
            if items {
                let scan = try ItemSelector.all.scan(in: snapshot, includeSecrets: false, salvage: true)
                report.entries = scan.items.map { GenericJSONLayout.Item($0, includeSecret: false) }
                report.unavailableItems = scan.unavailable.count
                report.table = ItemTable.text(scan.items)
                if !scan.damaged.isEmpty {
                    report.damagedItems = scan.damaged.map(DamageReport.record)
                    report.damagedLines = scan.damaged.map(DamageReport.line)
                }
            }
        }
        Output.out(json ? try Output.json(report) : report.text)
        if report.inspection.structure.error != nil || report.damagedItems != nil { throw ExitCode.damaged }
    }
}

/// The result of `inspect`: VaultIO's ``VaultInspection`` and, with `--items`, the items; its JSON
/// form (one object) is documented in Spec/cli.md.
struct InspectReport: Encodable {
    var inspection: VaultInspection
    /// With `--items`: every item the credential opens, without secrets.
    var entries: [GenericJSONLayout.Item]?
    /// With `--items`: items the credential cannot open (other device, base-scope keyslot).
    var unavailableItems: Int?
    /// With `--items`: records that are damaged (their IDs, and names when readable).
    var damagedItems: [DamageReport.Record]?
    /// With `--items`: one line per damaged record, for the text form.
    var damagedLines: [String] = []
    /// With `--items`: the human-readable item table.
    var table: String?

    private enum Keys: String, CodingKey { case entries, unavailableItems, damagedItems }

    /// The inspection's members and the items' in one object.
    func encode(to encoder: any Encoder) throws {
        try inspection.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encodeIfPresent(entries, forKey: .entries)
        try c.encodeIfPresent(unavailableItems, forKey: .unavailableItems)
        try c.encodeIfPresent(damagedItems, forKey: .damagedItems)
    }

    /// The human-readable form.
    var text: String {
        let i = inspection
        var out = Output.field("File:", i.file)
        guard let format = i.format, let sizes = i.sizes else {
            out += Output.field("Structure:", "DAMAGED: \(i.structure.error?.message ?? "unknown problem")")
            return out
        }
        out += Output.field("Format:", "vault \(format.major).\(format.minor)")
        out += Output.field("Vault ID:", i.vaultID ?? "")
        out += Output.field("Created:", i.created ?? "")
        out += Output.field("Generation:", String(i.generation ?? 0))
        if let seen = i.seen {
            let file =
                switch seen.file {
                case "fork": "fork of generation \(seen.generation)"
                case "rolledBack": "rolled back"
                default: seen.file
                }
            out += Output.field("Seen here:", "generation \(seen.generation) (this file: \(file))")
        }
        out += Output.field("Keyslots:", String(i.keyslots.count))
        for slot in i.keyslots {
            var line =
                "  #\(slot.index)  " + padded(slot.kind, 20)
                + padded(slot.scope, 8)
            if let kdf = slot.kdf {
                line +=
                    "Argon2id \(kdf.memoryKiB / 1024 > 0 ? "\(kdf.memoryKiB / 1024) MiB" : "\(kdf.memoryKiB) KiB"), t=\(kdf.iterations), p=\(kdf.lanes)"
                if slot.weak { line += "  (weak)" }
            }
            if let tpm2 = slot.tpm2 {
                line += Passwd.describe(pcrs: tpm2.pcrs)
                line += tpm2.pin ? ", PIN" : ", no PIN"
            }
            out += line + "\n"
        }
        if let recipients = i.recipients {
            let limited = i.limitedRecipients.map { ", \($0) limited to one access group" } ?? ""
            out += Output.field("Recipients:", "\(recipients) (keys and names encrypted\(limited))")
        }
        if let accessGroups = i.accessGroups {
            out += Output.field(
                "Groups:",
                "\(accessGroups) access group\(accessGroups == 1 ? "" : "s") with a key domain (names encrypted)"
            )
        }
        let encrypted = "encrypted (give a credential to count them)"
        out += Output.field("Items:", i.items.map(Output.count) ?? encrypted)
        out += Output.field("Deletions:", i.deletions.map(Output.count) ?? encrypted)
        if let index = sizes.index, let records = sizes.records {
            out += Output.field(
                "Sizes:",
                "header \(Output.count(sizes.header)) B, index \(Output.count(index)) B, records \(Output.count(records)) B, total \(Output.count(sizes.total)) B"
            )
        } else {
            let live = sizes.live.map { ", live \(Output.count($0)) B" } ?? ""
            out += Output.field(
                "Sizes:",
                "header \(Output.count(sizes.header)) B, committed \(Output.count(sizes.committed ?? 0)) B\(live), "
                    + "uncommitted \(Output.count(sizes.uncommitted ?? 0)) B, total \(Output.count(sizes.total)) B"
            )
        }
        out += Output.field("Structure:", "ok (header checksum and layout; items need the password to verify)")
        out += Output.field(
            "Header MAC:",
            i.authenticated
                ? "checked with the credential: the values above are authenticated"
                : "not checked: the values above are unauthenticated (anyone who can write the file can "
                    + "change them); give a credential to check it"
        )
        for warning in i.warnings { out += "Warning: \(warning)\n" }
        if let table {
            out += "\n" + table
            if let unavailableItems, unavailableItems > 0 {
                out += "(\(unavailableItems) more items cannot be opened with this credential or on this device)\n"
            }
            for line in damagedLines { out += "DAMAGED: \(line)\n" }
        }
        return out
    }
}
