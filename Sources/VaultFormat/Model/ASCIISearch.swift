// vault: finding ASCII text in a string without the _StringProcessing module.

extension StringProtocol {
    /// Where the ASCII text `needle` first occurs, compared byte for byte on the UTF-8 view, as
    /// `firstRange(of:)` finds it. An ASCII byte never occurs inside a multi-byte character, so
    /// both bounds are character boundaries of `self`.
    ///
    /// The standard library's `firstRange(of:)` and `contains(_:)` for strings live in
    /// _StringProcessing; calling them on every lookup paged in a quarter of a megabyte of that
    /// module's code (BENCHMARKS.md, "A lean process").
    package func firstRange(ofASCII needle: StaticString) -> Range<Index>? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        precondition(!pattern.isEmpty && pattern.allSatisfy { $0 < 0x80 }, "the needle is not ASCII text")
        let bytes = utf8
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start] == pattern[0], bytes[start...].starts(with: pattern) {
                return start..<bytes.index(start, offsetBy: pattern.count)
            }
            start = bytes.index(after: start)
        }
        return nil
    }

    /// Whether the ASCII text `needle` occurs, as `contains(_:)` for a string answers.
    package func contains(ascii needle: StaticString) -> Bool { firstRange(ofASCII: needle) != nil }
}
