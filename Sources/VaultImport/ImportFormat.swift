// vault: the export formats the importer reads.

/// An export format. The raw value is the name `vaulttool import --from` takes.
///
/// Spec: Spec/cli.md, "Import mappings and the generic layouts".
public enum ImportFormat: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The KeePass 2.x XML document (`keepassxc-cli export -f xml`).
    case keepassXML = "keepassxc-xml"
    /// KeePassXC's CSV export (`keepassxc-cli export -f csv`).
    case keepassCSV = "keepassxc-csv"
    /// Bitwarden's unencrypted JSON export (`bw export --format json`).
    case bitwardenJSON = "bitwarden-json"
    /// The generic JSON layout that `vaulttool export` writes.
    case json
    /// The generic CSV layout: a header row naming columns after the JSON layout's keys.
    case csv

    public var description: String { rawValue }

    /// Reads `bytes` as this format.
    func read(_ bytes: [UInt8]) throws -> ImportBatch {
        switch self {
        case .keepassXML: try KeePassXML.read(bytes)
        case .keepassCSV: try KeePassCSV.read(bytes)
        case .bitwardenJSON: try BitwardenJSON.read(bytes)
        case .json: try GenericJSON.read(bytes)
        case .csv: try GenericCSV.read(bytes)
        }
    }
}
