// vaulttool: the import side of migrate, shared by `import` and `migrate --from`.

import FoundationEssentials
import Glibc
import VaultIO
import VaultImport

/// The options and output of `import` and `migrate --from`: VaultImport reads the export and
/// writes its items in one transaction; this opens (or creates) the vault and prints the report.
struct ImportRunner {
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
        var created = false
        /// Whether duplicates stopped the import (nothing written).
        var refused = false
        var imported: Int = 0
        var replaced: Int = 0
        var skipped: [Skip] = []
        var notes: [String] = []
    }

    /// The import options as given (`@Group var importOptions: ImportRunner.Options`); the runner
    /// is made from them once the source and the vault are known.
    struct Options: OptionGroup {
        @Option(
            "--from",
            valueName: "format",
            help: "keepassxc-xml, keepassxc-csv, bitwarden-json, json or csv.",
            completion: .values(ImportFormat.allCases.map(\.rawValue))
        )
        var formatName: String?
        @Option(
            "--accessibility",
            valueName: "class",
            help: "Accessibility of imported items (default whenUnlocked).",
            completion: .values(ProtectionClass.allCases.map(\.description))
        )
        private var accessibilityName: String?
        @Flag("--replace", help: "Replace items that are already in the vault.") var replace: Bool
        @Flag("--skip-duplicates", help: "Import the rest when some entries are duplicates (else nothing is imported).")
        var skipDuplicates: Bool
        @Flag("--create", help: "Create the vault first if it does not exist.") var create: Bool
        @Flag("--dry-run", help: "Show what would happen; change nothing.") var dryRun: Bool
        @Flag("--json", help: "Print the summary as JSON.") var json: Bool
        /// The KDF options for `--create`: declared by the command, where its help lists them, and read here.
        @Group(specs: []) var kdfOptions: KDFOptions
        private(set) var accessibility: ProtectionClass?

        mutating func validate() throws {
            accessibility = try accessibilityName.map { try ItemSelector.parseAccessibility($0, hint: "") }
        }

        /// Whether an option that only an import takes was given (`migrate` without `--from`).
        var importOnlyGiven: Bool { formatName != nil || replace || accessibility != nil || skipDuplicates || create }
    }

    let format: ImportFormat
    let source: String
    let vaultPath: String
    /// The options as parsed: read from here, not copied field by field.
    let options: Options

    init(_ options: Options, source: String, vault: String) throws {
        guard let name = options.formatName else { throw UsageError("Missing '--from <format>'") }
        guard let format = ImportFormat(rawValue: name) else {
            let names = ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("Unknown format '\(name)'; use one of \(names)")
        }
        self.format = format
        self.source = source
        vaultPath = vault
        self.options = options
        if options.kdfOptions.isGiven && !options.create {
            throw UsageError("KDF options apply to an import only with '--create'")
        }
    }

    /// The vault to import into: opened, or created first with `--create`; `nil` for a dry run
    /// of `--create`, which creates nothing (``ImportBatch/preview(options:)``).
    private func openVault(_ credentials: CredentialOptions, _ summary: inout Summary) throws -> Vault? {
        if FileManager.default.fileExists(atPath: vaultPath) { return try VaultAccess.vault(vaultPath, credentials) }
        guard options.create else {
            throw ToolError(
                "there is no vault at '\(vaultPath)'; create it with 'vaulttool create', or give '--create'",
                exitCode: .ioFailure
            )
        }
        summary.created = true
        if options.dryRun { return nil }
        let (vault, line) = try Create.create(
            at: vaultPath,
            credentialOptions: credentials,
            kdfOptions: options.kdfOptions
        )
        if !options.json { Output.out(line) }
        return vault
    }

    func run(credentials: CredentialOptions) throws {
        var bytes = try SecretInput.read("export", at: source)
        defer { SecretMemory.wipe(&bytes) }
        let importer = VaultImporter(format: format)
        let batch = try Progress.run("Reading \(source)") {
            do { return try importer.read(bytes) } catch let error as ImportError {
                throw ToolError(error.description, exitCode: error.code == .readerUnavailable ? .ioFailure : .damaged)
            }
        }
        let dryRun = options.dryRun
        var summary = Summary(source: source, format: format.rawValue, vault: vaultPath, dryRun: dryRun)
        let vault = try openVault(credentials, &summary)
        let importOptions = ImportOptions(
            defaultAccessibility: options.accessibility ?? .whenUnlocked,
            replaceExisting: options.replace,
            skipDuplicates: options.skipDuplicates,
            dryRun: dryRun
        )
        let report: ImportReport
        if let vault {
            VaultAccess.warnAboutLocation(of: vault)
            report = try Progress.run("Writing \(vault.path)") {
                try batch.importItems(into: vault, options: importOptions)
            }
        } else {
            report = try Progress.run("Checking \(source)") { try batch.preview(options: importOptions) }
        }
        summary.imported = report.imported
        summary.replaced = report.replaced
        summary.skipped = report.skipped.map { Summary.Skip(entry: $0.entry, reason: Self.reason($0.reason)) }
        summary.notes = report.notes
        summary.refused = report.isRefused && !dryRun
        Output.out(options.json ? try Output.json(summary) : Self.text(summary))
        if report.isRefused {
            let duplicates = report.duplicateCount
            throw ToolError(
                "\(duplicates) \(duplicates == 1 ? "entry is a duplicate" : "entries are duplicates"); "
                    + (dryRun ? "an import would write nothing" : "nothing was imported")
                    + ". Give '--skip-duplicates' to import the rest, or '--replace' to overwrite items already in the vault"
            )
        }
    }

    /// A skip's reason as the summary words it: the options named, the vault's error as the CLI says it.
    static func reason(_ reason: ImportSkip.Reason) -> String {
        switch reason {
        case .alreadyInVault: "already in the vault (use --replace to overwrite)"
        case .refused(let error): describe(error).0
        default: reason.description
        }
    }

    static func text(_ summary: Summary) -> String {
        let verb = summary.dryRun || summary.refused ? "Would import" : "Imported"
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
