// vault: how an import is told to treat duplicates, and what it did.

public import VaultIO

/// How ``ImportBatch/importItems(into:options:)`` treats the entries.
///
/// Spec: Spec/cli.md, "import", "Duplicates are never dropped silently".
public struct ImportOptions: Sendable, Equatable {
    /// The protection class of entries whose format carries none (all but the generic layouts).
    public var defaultAccessibility: ProtectionClass
    /// Whether an entry replaces the vault's item with the same primary key (else it is a duplicate).
    public var replaceExisting: Bool
    /// Whether the other entries are imported when some are duplicates (else nothing is).
    public var skipDuplicates: Bool
    /// Whether to report what would happen and write nothing.
    public var dryRun: Bool

    /// Options; by default nothing is replaced, any duplicate refuses the import, and entries
    /// without a protection class get `whenUnlocked`.
    public init(
        defaultAccessibility: ProtectionClass = .whenUnlocked,
        replaceExisting: Bool = false,
        skipDuplicates: Bool = false,
        dryRun: Bool = false
    ) {
        self.defaultAccessibility = defaultAccessibility
        self.replaceExisting = replaceExisting
        self.skipDuplicates = skipDuplicates
        self.dryRun = dryRun
    }
}

/// What an import did, or, for a dry run or a refused import, would have done.
///
/// It holds names and reasons, never a secret.
public struct ImportReport: Sendable {
    /// The options the import ran with.
    public let options: ImportOptions
    /// Entries stored as new items.
    public internal(set) var imported = 0
    /// Entries that replaced an item with the same primary key.
    public internal(set) var replaced = 0
    /// Entries left out, in order: those left out while reading first, then the duplicates and
    /// the entries the vault refused.
    public internal(set) var skipped: [ImportSkip]
    /// Fields that were not imported, or kept elsewhere (``ImportBatch/notes``).
    public internal(set) var notes: [String]

    init(_ batch: ImportBatch, options: ImportOptions) {
        self.options = options
        skipped = batch.skipped
        notes = batch.notes
    }

    /// The number of entries skipped as duplicates (``ImportSkip/Reason/isDuplicate``).
    public var duplicateCount: Int { skipped.count(where: { $0.reason.isDuplicate }) }

    /// Whether duplicates refused the import: some entries are duplicates and
    /// ``ImportOptions/skipDuplicates`` is off.
    public var isRefused: Bool { duplicateCount > 0 && !options.skipDuplicates }

    /// Whether the import's changes are kept: not a dry run, and not refused.
    ///
    /// ``ImportBatch/importItems(into:options:)`` commits exactly when this is true; a caller of
    /// ``ImportBatch/apply(to:options:)`` throws from its transaction when it is false.
    public var isWritten: Bool { !options.dryRun && !isRefused }

    mutating func skip(_ entry: ImportEntry, _ reason: ImportSkip.Reason) {
        skipped.append(ImportSkip(entry: entry.name, reason: reason))
    }
}
