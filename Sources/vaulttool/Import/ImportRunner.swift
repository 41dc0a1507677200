// vaulttool: the import side of migrate, shared by `import` and `migrate --from`.

import Foundation
import VaultFormat
import VaultIO

/// Reads an export, writes its items into a vault in one transaction, and reports.
struct ImportRunner {
    static let specs = [
        OptionSpec(
            names: ["--from"],
            valueName: "format",
            help: "keepassxc-xml, keepassxc-csv, bitwarden-json, json or csv."
        ),
        OptionSpec(
            names: ["--accessibility"],
            valueName: "class",
            help: "Accessibility of imported items (default whenUnlocked)."
        ),
        OptionSpec(names: ["--replace"], valueName: nil, help: "Replace items that are already in the vault."),
        OptionSpec(names: ["--dry-run"], valueName: nil, help: "Show what would happen; change nothing."),
        OptionSpec(names: ["--json"], valueName: nil, help: "Print the summary as JSON."),
    ]

    /// The summary; its JSON form is documented in Spec/cli.md.
    struct Summary: Encodable {
        struct Skip: Encodable {
            var entry: String
            var reason: String
        }
        var source: String
        var format: String
        var vault: String
        var dryRun: Bool
        var imported: Int = 0
        var replaced: Int = 0
        var skipped: [Skip] = []
        var notes: [String] = []
    }

    let format: String
    let source: String
    let vaultPath: String
    let accessibility: ProtectionClass?
    let replace: Bool
    let dryRun: Bool
    let json: Bool

    init(_ parsed: ParsedArguments, source: String, vault: String) throws {
        guard let format = parsed.value("--from") else { throw UsageError("Missing '--from <format>'") }
        guard Importers.names.contains(format) else {
            throw UsageError("Unknown format '\(format)'; use one of \(Importers.names.joined(separator: ", "))")
        }
        self.format = format
        self.source = source
        vaultPath = vault
        accessibility = try parsed.value("--accessibility").map { name in
            guard let value = ProtectionClass(name: name) else { throw UsageError("Unknown accessibility '\(name)'") }
            return value
        }
        replace = parsed.flag("--replace")
        dryRun = parsed.flag("--dry-run")
        json = parsed.flag("--json")
    }

    func run(credentials: CredentialOptions) throws {
        var bytes = try CredentialOptions.readFile(source, what: "export")
        defer { CredentialOptions.wipe(&bytes) }
        let batch = try Progress.run("Reading \(source)") { try Importers.read(bytes, format: format) }
        var summary = Summary(source: source, format: format, vault: vaultPath, dryRun: dryRun)
        summary.skipped = batch.skipped.map { Summary.Skip(entry: $0.name, reason: $0.reason) }
        summary.notes = batch.notes
        let vault = try VaultAccess.vault(
            vaultPath,
            try VaultAccess.opener(vaultPath, credentials),
            acceptRollback: credentials.acceptRollback
        )
        let body = { (txn: inout VaultTransaction) throws in
            var seen = [PrimaryKey: String]()
            for item in batch.items {
                let key = PrimaryKey(itemClass: item.itemClass, attributes: item.attributes)
                if let earlier = seen[key] {
                    summary.skipped.append(.init(entry: item.name, reason: "same primary key as \(earlier)"))
                    continue
                }
                seen[key] = item.name
                let existing = try txn.item(for: key)
                if existing != nil && !replace {
                    summary.skipped.append(
                        .init(entry: item.name, reason: "already in the vault (use --replace to overwrite)")
                    )
                    continue
                }
                let draft = ItemDraft(
                    id: existing?.id ?? item.id ?? ItemID(random: SystemRandom()),
                    itemClass: item.itemClass,
                    protectionClass: item.accessibility ?? accessibility ?? .whenUnlocked,
                    attributes: item.attributes,
                    secret: SecretBytes(bytes: item.secret, protection: .guarded)
                )
                if item.id != nil && existing == nil && txn.entry(for: draft.id) != nil {
                    summary.skipped.append(.init(entry: item.name, reason: "its id is taken by another item"))
                    continue
                }
                do {
                    try txn.set(draft)
                } catch let error as VaultFormatError {
                    summary.skipped.append(.init(entry: item.name, reason: describe(error).0))
                    continue
                }
                if existing == nil { summary.imported += 1 } else { summary.replaced += 1 }
            }
            if dryRun { throw DryRun() }
        }
        do {
            try VaultAccess.write(vault, body)
        } catch is DryRun {}
        Output.out(json ? try Output.json(summary) : Self.text(summary))
    }

    /// Thrown to roll back a dry run's transaction.
    private struct DryRun: Error {}

    static func text(_ summary: Summary) -> String {
        let verb = summary.dryRun ? "Would import" : "Imported"
        var out = "\(verb) \(summary.imported) items from \(summary.source) (\(summary.format)) into \(summary.vault)"
        if summary.replaced > 0 { out += "; \(summary.dryRun ? "would replace" : "replaced") \(summary.replaced)" }
        out += ".\n"
        if !summary.skipped.isEmpty {
            out += "Skipped \(summary.skipped.count):\n"
            for skip in summary.skipped { out += "  \(skip.entry): \(skip.reason)\n" }
        }
        if !summary.notes.isEmpty {
            out += "Notes:\n"
            for note in summary.notes { out += "  \(note)\n" }
        }
        return out
    }
}
