// vault: item dates in exports, read back from RFC 3339 text.

import FoundationEssentials

/// Item dates read from exports: RFC 3339 text into the vault's milliseconds since the Unix
/// epoch, 0 for "no date" (VaultIO's `RFC3339` writes them).
///
/// Spec: Spec/cli.md, "The generic JSON layout".
enum ExportDates {
    /// `text` as milliseconds; empty or absent is 0 (no date).
    ///
    /// - Throws: ``ImportProblem`` when the text is not an RFC 3339 date.
    static func parse(_ text: String?) throws -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        guard let date = date(text) else { throw ImportProblem("'\(text)' is not an RFC 3339 date") }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Parses `2026-01-01T00:00:00Z`, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
