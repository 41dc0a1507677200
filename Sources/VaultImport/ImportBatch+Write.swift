// vault: writing an import's entries into a vault: duplicates, replacement, one transaction.

import FoundationEssentials
import Glibc
public import VaultIO

extension ImportBatch {
    /// Writes the entries into `vault` in one atomic write, as `options` allow.
    ///
    /// Each entry is stored through the library's one upsert (`VaultTransaction.upsert`), so an
    /// imported item has the identity any other writer would give it (L-KC-15). Entries that
    /// share a primary key but come from different groups are told apart first (each gets its
    /// group path as access group). An entry that is still a duplicate (of an earlier entry, of
    /// an item in the vault without ``ImportOptions/replaceExisting``, or whose ID is taken)
    /// refuses the whole import unless ``ImportOptions/skipDuplicates``; the vault is then left
    /// untouched, as it is for a dry run.
    ///
    /// ```swift
    /// let batch = try VaultImporter(format: .bitwardenJSON).read(bytes)
    /// let report = try batch.importItems(into: vault, options: ImportOptions(skipDuplicates: true))
    /// print("imported \(report.imported), skipped \(report.skipped.count)")
    /// ```
    ///
    /// Spec: Spec/cli.md, "import", "Duplicates are never dropped silently".
    ///
    /// - Parameters:
    ///   - vault: The vault to write to.
    ///   - options: How to treat duplicates and entries without a protection class.
    /// - Returns: What was imported, replaced and skipped; see ``ImportReport/isWritten``.
    /// - Throws: What `Vault.write` throws (a lock timeout, a refused rollback, an I/O failure).
    public func importItems(into vault: Vault, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        var report: ImportReport?
        do {
            try vault.write { transaction in
                let done = try apply(to: &transaction, options: options)
                report = done
                if !done.isWritten { throw RollBack() }
            }
        } catch is RollBack {}
        return report ?? ImportReport(self, options: options)
    }

    /// What ``importItems(into:options:)`` would do in a new, empty vault: a dry run for an
    /// import that would create its vault first (`vaulttool import --create --dry-run`).
    ///
    /// The entries are written into a scratch vault in a new private directory (at the lowest
    /// key-derivation cost, under a random password) whose transaction is rolled back, so that
    /// every entry the vault would refuse is reported as an import would report it; the
    /// directory is removed before this returns. The report is a dry run's whatever `options`
    /// say, and nothing a caller keeps is written.
    ///
    /// ```swift
    /// let report = try batch.preview(options: ImportOptions(skipDuplicates: true))
    /// print("would import \(report.imported)")
    /// ```
    ///
    /// - Parameter options: How to treat duplicates and entries without a protection class.
    /// - Returns: What an import into a new vault would import, replace and skip.
    /// - Throws: `VaultIOError` when the scratch directory or vault cannot be made.
    public func preview(options: ImportOptions = ImportOptions()) throws -> ImportReport {
        let parent = Self.temporaryDirectory()
        var template = Array((parent + "/vault-import-preview-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw VaultIOError(.system, operation: "mkdtemp", errno: Errno(rawValue: errno), path: parent)
        }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var password = [UInt8](repeating: 0, count: 32)
        password.withUnsafeMutableBytes { SystemRandom().fill($0) }
        let credentials = Credentials(password: SecretBytes(bytes: password, protection: .guarded))
        SecretMemory.wipe(&password)
        let floor = KDFParameters(
            memoryKiB: KDFParameters.minimumMemoryKiB,
            iterations: KDFParameters.minimumIterations,
            lanes: 1
        )
        let vault = try Vault.create(
            at: directory + "/preview.vault",
            credentials: credentials,
            configuration: VaultConfiguration(kdf: floor)
        )
        var dryRun = options
        dryRun.dryRun = true
        return try importItems(into: vault, options: dryRun)
    }

    /// `$TMPDIR`, else `/tmp`.
    private static func temporaryDirectory() -> String {
        guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
        return value
    }

    /// Writes the entries into an open transaction, as `options` allow, and reports.
    ///
    /// The entries are stored even when the report says they are not to be kept (a dry run,
    /// or a refusal for duplicates): the caller then throws from its transaction to roll it
    /// back. ``importItems(into:options:)`` does exactly that.
    ///
    /// - Parameters:
    ///   - transaction: The transaction to write to.
    ///   - options: How to treat duplicates and entries without a protection class.
    /// - Returns: What was imported, replaced and skipped.
    /// - Throws: What the transaction throws when the vault cannot be read; an item the vault
    ///   refuses is skipped with ``ImportSkip/Reason/refused(_:)`` instead.
    public func apply(to transaction: inout VaultTransaction, options: ImportOptions = ImportOptions()) throws
        -> ImportReport
    {
        var report = ImportReport(self, options: options)
        var seen = [PrimaryKey: String]()
        // One decryption per stored item, not one scan per imported one (L-KC-15 lookups).
        var stored = try transaction.identities()
        for entry in Self.separatingGroups(entries) {
            let identity = entry.attributes.canonicalIdentity(for: entry.itemClass)
            let key = PrimaryKey(itemClass: entry.itemClass, attributes: identity)
            if let earlier = seen[key] {
                report.skip(entry, .samePrimaryKey(as: earlier))
                continue
            }
            seen[key] = entry.name
            let existing = stored[key]
            if existing != nil && !options.replaceExisting {
                report.skip(entry, .alreadyInVault)
                continue
            }
            if let id = entry.id, existing == nil, try transaction.entry(for: id) != nil {
                report.skip(entry, .idTaken)
                continue
            }
            do {
                // The export's attributes replace the item's, dates included; the ID stays.
                try transaction.upsert(
                    entry.itemClass,
                    identity: identity,
                    // Ordinary memory, wiped when freed: the export is already plaintext in this
                    // process, and a guarded allocation (mmap, two mprotects, munmap) per item
                    // was a third of an import of 10,000 rows.
                    secret: SecretBytes(bytes: entry.secret, protection: .zeroed),
                    protectionClass: entry.accessibility ?? options.defaultAccessibility,
                    newItemID: entry.id,
                    existing: .some(existing)
                ) { $0 = entry.attributes }
                stored[key] = nil
            } catch let error as VaultFormatError {
                report.skip(entry, .refused(error))
                continue
            }
            if existing == nil { report.imported += 1 } else { report.replaced += 1 }
        }
        return report
    }

    /// Entries of the file that share a primary key but sit in different groups get their group
    /// path as access group, so that none is lost. Spec: Spec/cli.md, "import", duplicates.
    static func separatingGroups(_ entries: [ImportEntry]) -> [ImportEntry] {
        guard entries.contains(where: { !$0.folder.isEmpty }) else { return entries }
        var count = [PrimaryKey: Int]()
        func key(_ entry: ImportEntry) -> PrimaryKey {
            PrimaryKey(itemClass: entry.itemClass, attributes: entry.attributes.canonicalIdentity(for: entry.itemClass))
        }
        for entry in entries { count[key(entry), default: 0] += 1 }
        return entries.map { entry in
            guard count[key(entry), default: 0] > 1, !entry.folder.isEmpty, entry.attributes.accessGroup.isEmpty else {
                return entry
            }
            var separated = entry
            separated.attributes.accessGroup = entry.folder
            return separated
        }
    }
}

/// Thrown to roll back a dry run's or a refused import's transaction.
private struct RollBack: Error {}
