// vault: why an export could not be read at all.

/// Why a file is not an export of the format it was read as.
///
/// Only ``code`` takes part in `==`, so tests can write
/// `#expect(throws: ImportError(.rowLength))`. The ``reason`` names the element, key, column or
/// row at fault and never quotes a secret.
///
/// An entry that breaks a rule on its own (an unknown class, a bad date) does not make the file
/// unreadable: it is skipped and listed in ``ImportBatch/skipped`` instead.
public struct ImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A kind of failure. New codes may be added in minor releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// Not well-formed XML or JSON, not UTF-8 text, an empty file or a quoted CSV field left open.
        public static let malformed = Code("malformed")
        /// A required element, key or column is missing (``ImportError/field`` names it).
        public static let missingField = Code("missingField")
        /// A CSV row has more or fewer fields than the header (``ImportError/row`` numbers it).
        public static let rowLength = Code("rowLength")
        /// The export is encrypted (Bitwarden's encrypted JSON); export it again unencrypted.
        public static let encrypted = Code("encrypted")
        /// The generic layout names another format or a version this library does not read.
        public static let unsupportedLayout = Code("unsupportedLayout")
        /// The system library that reads this format cannot be loaded (libxml2, for KeePass XML):
        /// nothing is wrong with the file.
        public static let readerUnavailable = Code("readerUnavailable")

        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// The format the file was read as; `nil` in an error made for comparison.
    public let format: ImportFormat?
    /// What is wrong, for a person: `row 3 has 2 fields; the header has 6`. Never a secret.
    public let reason: String
    /// The row at fault (CSV; the header is row 1), or the line where the XML parser stopped
    /// (at or after the fault), when known.
    public let row: Int?
    /// The element, key or column at fault, when known: `Root`, `items.0.type`, `Password`.
    public let field: String?

    /// An error to compare against: `#expect(throws: ImportError(.encrypted))`.
    public init(_ code: Code) {
        self.init(ImportProblem("", code: code), format: nil)
    }

    /// The error of a file read as `format` whose parser found `problem`.
    init(_ problem: ImportProblem, format: ImportFormat?) {
        code = problem.code
        self.format = format
        reason = problem.reason
        row = problem.row
        field = problem.field
    }

    /// `the file is not a valid <format> export: <reason>`, or for ``Code/readerUnavailable``
    /// `cannot read <format> exports here: <reason>`.
    public var description: String {
        let name = format.map(\.rawValue) ?? "import"
        if code == .readerUnavailable { return "cannot read \(name) exports here: \(reason)" }
        return "the file is not a valid \(name) export: \(reason)"
    }

    public static func == (lhs: ImportError, rhs: ImportError) -> Bool { lhs.code == rhs.code }
}

/// What a parser throws: for the whole file (wrapped into ``ImportError`` with the format), or
/// for one entry (its reason becomes a skip).
struct ImportProblem: Error {
    var code = ImportError.Code.malformed
    let reason: String
    var row: Int?
    var field: String?

    init(_ reason: String, code: ImportError.Code = .malformed, row: Int? = nil, field: String? = nil) {
        self.reason = reason
        self.code = code
        self.row = row
        self.field = field
    }
}
