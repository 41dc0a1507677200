// vault: trimming and decoding text the way the command line and the importers need, without Foundation.

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (Unicode white space that is not a
    /// line break), as Foundation's `trimmingCharacters(in: .whitespaces)`.
    package func trimmingWhitespace() -> String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// The text without leading and trailing line breaks.
    package func trimmingNewlines() -> String { trimming(\.isNewline) }

    private func trimming(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension StringProtocol {
    /// The text with each `%XX` replaced by the byte it names, `nil` when an escape is malformed
    /// or the bytes are not UTF-8 (Foundation's `removingPercentEncoding`).
    package func percentDecoded() -> String? {
        var bytes: [UInt8] = []
        var rest = utf8[...]
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
