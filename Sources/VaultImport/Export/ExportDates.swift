// vault: item dates in exports and listings: RFC 3339 text in UTC, and read back.

import FoundationEssentials
import VaultIO

/// Item dates: milliseconds since the Unix epoch in the vault, RFC 3339 text in exports and
/// listings (`2026-01-01T00:00:00.000Z`), 0 for "no date".
///
/// The text is VaultIO's `RFC3339` formatter's.
///
/// Spec: Spec/cli.md, "The generic JSON layout".
public enum ExportDates {
    /// The text of an item date with milliseconds, as the generic layout writes it; `nil` for 0
    /// (no date), which the layout writes as `null`.
    public static func format(_ milliseconds: Int64) -> String? {
        guard milliseconds != 0 else { return nil }
        return RFC3339.format(milliseconds, fractionalSeconds: true)
    }

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
