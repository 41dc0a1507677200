// vault: the importer's front door: read an export, write its entries, report.

public import VaultIO

/// Reads another password store's export and imports its entries into a vault.
///
/// ```swift
/// import VaultImport
///
/// let bytes = Array(try Data(contentsOf: exportURL))
/// let report = try VaultImporter(format: .keepassXML).importItems(from: bytes, into: vault)
/// for skip in report.skipped { print("\(skip.entry): \(skip.reason)") }
/// ```
///
/// Reading and writing are also available apart: ``read(_:)`` returns an ``ImportBatch`` to
/// look at (or to show before asking), and ``ImportBatch/importItems(into:options:)`` writes it.
///
/// Spec: Spec/cli.md, "import" and "Import mappings and the generic layouts".
public struct VaultImporter: Sendable {
    /// The format this importer reads.
    public let format: ImportFormat

    /// An importer of `format`.
    public init(format: ImportFormat) {
        self.format = format
    }

    /// Reads an export into entries; writes nothing.
    ///
    /// - Parameter bytes: The whole export file.
    /// - Returns: The entries, the entries left out by the format's rules, and notes.
    /// - Throws: An ``ImportError`` when the file is not in the format at all. An entry that
    ///   cannot be read on its own is skipped instead (``ImportBatch/skipped``).
    public func read(_ bytes: [UInt8]) throws(ImportError) -> ImportBatch {
        do {
            return try format.read(bytes)
        } catch let problem as ImportProblem {
            throw ImportError(problem, format: format)
        } catch {
            // The parsers throw ImportProblem only; anything else is reported without its text.
            throw ImportError(ImportProblem("unreadable"), format: format)
        }
    }

    /// Reads an export and writes its entries into `vault` in one atomic write.
    ///
    /// The same as ``read(_:)`` followed by ``ImportBatch/importItems(into:options:)``.
    ///
    /// - Parameters:
    ///   - bytes: The whole export file.
    ///   - vault: The vault to write to.
    ///   - options: How to treat duplicates and entries without a protection class.
    /// - Returns: What was imported, replaced and skipped.
    /// - Throws: An ``ImportError`` when the file is not in the format; what `Vault.write` throws.
    public func importItems(
        from bytes: [UInt8],
        into vault: Vault,
        options: ImportOptions = ImportOptions()
    ) throws -> ImportReport {
        try read(bytes).importItems(into: vault, options: options)
    }
}
