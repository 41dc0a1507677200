// vaulttool: the import side of migrate, shared by `import` and `migrate --from`.

import Foundation
import VaultIO

/// Reads an export, writes its items into a vault in one transaction, and reports.
struct ImportRunner {
    /// The import options, declared once: ``specs`` lists them, `init` reads them.
    enum Key {
        static let from = Option(
            "--from",
            valueName: "format",
            help: "keepassxc-xml, keepassxc-csv, bitwarden-json, json or csv.",
            completion: .values(Importers.names)
        )
        static let accessibility = Option(
            "--accessibility",
            valueName: "class",
            help: "Accessibility of imported items (default whenUnlocked).",
            completion: .values(ProtectionClass.allCases.map(\.description))
        )
        static let replace = Flag("--replace", help: "Replace items that are already in the vault.")
        static let skipDuplicates = Flag(
            "--skip-duplicates",
            help: "Import the rest when some entries are duplicates (else nothing is imported)."
        )
        static let create = Flag("--create", help: "Create the vault first if it does not exist.")
        static let dryRun = Flag("--dry-run", help: "Show what would happen; change nothing.")
        static let json = Flag("--json", help: "Print the summary as JSON.")
    }

    static let specs = [
        Key.from.spec, Key.accessibility.spec, Key.replace.spec, Key.skipDuplicates.spec, Key.create.spec,
        Key.dryRun.spec, Key.json.spec,
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
        var created = false
        /// Whether duplicates stopped the import (nothing written).
        var refused = false
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
    let skipDuplicates: Bool
    let create: Bool
    let kdfOptions: KDFOptions

    init(_ parsed: ParsedArguments, source: String, vault: String) throws {
        guard let format = parsed[Key.from] else { throw UsageError("Missing '--from <format>'") }
        guard Importers.names.contains(format) else {
            throw UsageError("Unknown format '\(format)'; use one of \(Importers.names.joined(separator: ", "))")
        }
        self.format = format
        self.source = source
        vaultPath = vault
        accessibility = try parsed[Key.accessibility].map { name in
            guard let value = ProtectionClass(name: name) else { throw UsageError("Unknown accessibility '\(name)'") }
            return value
        }
        replace = parsed[Key.replace]
        dryRun = parsed[Key.dryRun]
        json = parsed[Key.json]
        skipDuplicates = parsed[Key.skipDuplicates]
        create = parsed[Key.create]
        kdfOptions = try KDFOptions(parsed)
        if kdfOptions.isGiven && !create {
            throw UsageError("KDF options apply to an import only with '--create'")
        }
    }

    /// The vault to import into: opened, or created first with `--create` (a dry run creates
    /// nothing and reads into an empty vault).
    private func openVault(_ credentials: CredentialOptions, _ summary: inout Summary) throws -> Vault {
        let exists = FileManager.default.fileExists(atPath: vaultPath)
        if exists {
            return try VaultAccess.vault(
                vaultPath,
                try VaultAccess.opener(vaultPath, credentials),
                acceptRollback: credentials.acceptRollback
            )
        }
        guard create else {
            throw ToolError(
                "there is no vault at '\(vaultPath)'; create it with 'vaulttool create', or give '--create'",
                exitCode: .ioFailure
            )
        }
        summary.created = true
        if dryRun { return try Self.scratchVault() }
        let (vault, line) = try Create.create(at: vaultPath, credentialOptions: credentials, kdfOptions: kdfOptions)
        if !json { Output.out(line) }
        return vault
    }

    /// An empty vault in a fresh private directory, for a dry run of `--create`; its
    /// directory is removed when the process exits. It never holds a secret: a dry run
    /// rolls its transaction back.
    private static func scratchVault() throws -> Vault {
        var template = Array((NSTemporaryDirectory() + "/vaulttool-dry-run-XXXXXX").utf8CString)
        guard let directory = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ToolError("cannot create a temporary directory for the dry run", exitCode: .ioFailure)
        }
        let path = String(cString: directory) + "/dry-run.vault"
        scratch = String(cString: directory)
        atexit {
            if let scratch = ImportRunner.scratch { try? FileManager.default.removeItem(atPath: scratch) }
        }
        var password = [UInt8](repeating: 0, count: 32)
        password.withUnsafeMutableBytes { SystemRandom().fill($0) }
        let credentials = Credentials(password: SecretBytes(bytes: password, protection: .guarded))
        CredentialOptions.wipe(&password)
        let floor = KDFParameters(
            memoryKiB: KDFParameters.minimumMemoryKiB,
            iterations: KDFParameters.minimumIterations,
            lanes: 1
        )
        let configuration = VaultConfiguration(kdf: floor)
        return try Vault.create(at: path, credentials: credentials, configuration: configuration)
    }

    nonisolated(unsafe) private static var scratch: String?

    /// Entries of the file that share a primary key but sit in different groups get their group
    /// path as access group, so that none is lost. Spec: Spec/cli.md, "import", duplicates.
    static func separateGroups(_ items: [ImportedItem]) -> [ImportedItem] {
        guard items.contains(where: { !$0.folder.isEmpty }) else { return items }
        var count = [PrimaryKey: Int]()
        func key(_ item: ImportedItem) -> PrimaryKey {
            PrimaryKey(itemClass: item.itemClass, attributes: item.attributes.canonicalIdentity(for: item.itemClass))
        }
        for item in items { count[key(item), default: 0] += 1 }
        return items.map { item in
            let key = key(item)
            guard count[key, default: 0] > 1, !item.folder.isEmpty, item.attributes.accessGroup.isEmpty else {
                return item
            }
            var separated = item
            separated.attributes.accessGroup = item.folder
            return separated
        }
    }

    func run(credentials: CredentialOptions) throws {
        var bytes = try CredentialOptions.readFile(source, what: "export")
        defer { CredentialOptions.wipe(&bytes) }
        let batch = try Progress.run("Reading \(source)") { try Importers.read(bytes, format: format) }
        var summary = Summary(source: source, format: format, vault: vaultPath, dryRun: dryRun)
        summary.skipped = batch.skipped.map { Summary.Skip(entry: $0.name, reason: $0.reason) }
        summary.notes = batch.notes
        let vault = try openVault(credentials, &summary)
        var duplicates = 0
        let body = { (txn: inout VaultTransaction) throws in
            var seen = [PrimaryKey: String]()
            // One decryption per stored item, not one scan per imported one (L-KC-15 lookups).
            var stored = try txn.identities()
            for item in Self.separateGroups(batch.items) {
                let identity = item.attributes.canonicalIdentity(for: item.itemClass)
                let key = PrimaryKey(itemClass: item.itemClass, attributes: identity)
                if let earlier = seen[key] {
                    summary.skipped.append(.init(entry: item.name, reason: "same primary key as \(earlier)"))
                    duplicates += 1
                    continue
                }
                seen[key] = item.name
                let existing = stored[key]
                if existing != nil && !replace {
                    summary.skipped.append(
                        .init(entry: item.name, reason: "already in the vault (use --replace to overwrite)")
                    )
                    duplicates += 1
                    continue
                }
                if let id = item.id, existing == nil, txn.entry(for: id) != nil {
                    summary.skipped.append(.init(entry: item.name, reason: "its id is taken by another item"))
                    duplicates += 1
                    continue
                }
                do {
                    // The export's attributes replace the item's, dates included; the ID stays.
                    try txn.upsert(
                        item.itemClass,
                        identity: identity,
                        // Ordinary memory, wiped when freed: the export is already plaintext in this
                        // process, and a guarded allocation (mmap, two mprotects, munmap) per item
                        // was a third of an import of 10,000 rows.
                        secret: SecretBytes(bytes: item.secret, protection: .zeroed),
                        protectionClass: item.accessibility ?? accessibility ?? .whenUnlocked,
                        newItemID: item.id,
                        existing: .some(existing)
                    ) { $0 = item.attributes }
                    stored[key] = nil
                } catch let error as VaultFormatError {
                    summary.skipped.append(.init(entry: item.name, reason: describe(error).0))
                    continue
                }
                if existing == nil { summary.imported += 1 } else { summary.replaced += 1 }
            }
            if dryRun || (duplicates > 0 && !skipDuplicates) { throw DryRun() }
        }
        do {
            try VaultAccess.write(vault, body)
        } catch is DryRun {}
        let refused = duplicates > 0 && !skipDuplicates
        if refused && !dryRun {
            summary.refused = true
        }
        Output.out(json ? try Output.json(summary) : Self.text(summary))
        if refused {
            throw ToolError(
                "\(duplicates) \(duplicates == 1 ? "entry is a duplicate" : "entries are duplicates"); "
                    + (dryRun ? "an import would write nothing" : "nothing was imported")
                    + ". Give '--skip-duplicates' to import the rest, or '--replace' to overwrite items already in the vault"
            )
        }
    }

    /// Thrown to roll back a dry run's transaction.
    private struct DryRun: Error {}

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
