// vault: finding text in a string without the _StringProcessing module.

/// Searches for text Character by Character, as the standard library's `firstRange(of:)` and
/// `contains(_:)` for strings do, without calling them.
///
/// Those live in _StringProcessing; calling them on every lookup paged in a quarter of a megabyte
/// of that module's code (BENCHMARKS.md, "A lean process"). `Sequence.starts(with:)` is the
/// standard library's own. Item identity depends on these answers (L-KC-15), so they must never
/// differ from the ones stored items were canonicalised with: a `:` that a combining mark joins,
/// or that a prepended scalar starts, is not a `:`.
package enum CharacterSearch {
    /// Where `needle` first occurs in `text`.
    package static func range<Text: StringProtocol>(of needle: String, in text: Text) -> Range<Text.Index>? {
        guard !needle.isEmpty else { return text.startIndex..<text.startIndex }
        var start = text.startIndex
        while start != text.endIndex {
            if text[start...].starts(with: needle) { return start..<text.index(start, offsetBy: needle.count) }
            start = text.index(after: start)
        }
        return nil
    }

    /// Whether `needle` occurs in `text`.
    package static func contains<Text: StringProtocol>(_ needle: String, in text: Text) -> Bool {
        range(of: needle, in: text) != nil
    }
}
