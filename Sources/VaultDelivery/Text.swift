// vault: what Foundation's string methods did for the protocols (trimming).

/// What Foundation's string methods did for the helpers' protocols and git-setup.
enum Text {
    /// `text` without leading and trailing spaces and tabs (Unicode white space that is not a
    /// line break), as Foundation's `trimmingCharacters(in: .whitespaces)`.
    static func trimmingWhitespace(_ text: some StringProtocol) -> String {
        trimming(text) { $0.isWhitespace && !$0.isNewline }
    }

    /// `text` without leading and trailing line breaks.
    static func trimmingNewlines(_ text: some StringProtocol) -> String { trimming(text, \.isNewline) }

    private static func trimming(_ text: some StringProtocol, _ drop: (Character) -> Bool) -> String {
        guard let first = text.firstIndex(where: { !drop($0) }), let last = text.lastIndex(where: { !drop($0) })
        else { return "" }
        return String(text[first...last])
    }
}
