// vaulttool: what Foundation's string methods did for the commands (trimming, percent decoding).

/// What Foundation's string methods did for the commands.
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

    /// `text` with each `%XX` replaced by the byte it names, `nil` when an escape is malformed or
    /// the bytes are not UTF-8 (Foundation's `removingPercentEncoding`).
    static func percentDecoded(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var rest = text.utf8[...]
        while let b = rest.popFirst() {
            guard b == UInt8(ascii: "%") else {
                bytes.append(b)
                continue
            }
            guard let h = rest.popFirst().flatMap(hexValue), let l = rest.popFirst().flatMap(hexValue) else {
                return nil
            }
            bytes.append(h << 4 | l)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: c - 0x30
    case 0x41...0x46: c - 0x41 + 10
    case 0x61...0x66: c - 0x61 + 10
    default: nil
    }
}
