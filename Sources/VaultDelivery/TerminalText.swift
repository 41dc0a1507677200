// vault: text from a vault made safe and aligned for a terminal.

/// Attribute text shown in tables: control characters escaped, widths measured in columns.
///
/// Attributes come from imports and other programs; a newline would break a table's rows,
/// and an escape sequence would reach the terminal (retitle the window, hide text, move the
/// cursor). Every message of this library that quotes such text escapes it so.
///
/// Spec: Spec/cli.md, "list" (display of attribute text).
public enum TerminalText {
    /// `text` with every control character written as an escape: `\n`, `\r`, `\t`, `\e`,
    /// `\xHH` for the other C0 controls and DEL, `\u{HHHH}` for C1 controls, bidirectional
    /// overrides and isolates, and the line and paragraph separators. Other text is unchanged.
    public static func escaped(_ text: String) -> String {
        // Printable ASCII, the common case, needs nothing.
        if isPrintableASCII(text) { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x1B: out += "\\e"
            case 0x00...0x7F: out += "\\x" + hex(scalar.value, digits: 2)
            default: out += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return out
    }

    /// Whether `text` is printable ASCII only (nothing to escape, one column per byte), checked
    /// over its contiguous UTF-8: a table checks 80,000 cells for 10,000 items.
    public static func isPrintableASCII(_ text: String) -> Bool {
        func printable(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }
        return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(printable) }
            ?? text.utf8.allSatisfy(printable)
    }

    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1 (0x9B is a one-byte CSI)
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi marks, overrides, isolates
        case 0x2028, 0x2029: return true  // line and paragraph separators
        default: return false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The number of terminal columns `text` takes: 2 for East Asian wide and fullwidth
    /// characters and emoji, 0 for a cluster of only combining or zero-width marks, 1 otherwise.
    /// A character with combining marks (`e` + U+0301) is one cluster and counts as its base.
    public static func width(_ text: String) -> Int {
        // Printable ASCII, the common case, is one column per byte.
        if isPrintableASCII(text) { return text.utf8.count }
        return text.reduce(0) { $0 + width($1) }
    }

    static func width(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.allSatisfy({ isZeroWidth($0) }) { return 0 }
        if isWide(first) { return 2 }
        // An emoji shown in emoji presentation (VS16) takes two columns.
        if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        return 1
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return scalar.value == 0x200B
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt, and emoji
    /// with default emoji presentation.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE,
            0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
            0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705,
            0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF,
            0x2B1B...0x2B1C, 0x2B50, 0x2B55, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F320,
            0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3,
            0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D,
            0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A, 0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F,
            0x1F680...0x1F6C5, 0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6EB...0x1F6EC,
            0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF,
            0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `value` as a JSON string literal: quotes and backslashes escaped, `\n`, `\r`, `\t`, and
    /// `\uXXXX` for every other scalar ``needsEscape(_:)`` names. A newline or control character
    /// in an attribute can then never forge a line of a view or of a message, nor reorder how a
    /// line is shown.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // C0, DEL, C1, line separators and bidi controls (which reorder how a line is shown).
                if TerminalText.needsEscape(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `text` followed by spaces up to `columns` display columns.
    public static func padded(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - width(text)))
    }

    /// Whether `bytes` are UTF-8 text with nothing a terminal would act on (a tab and a newline
    /// pass), decoded in place: no `String` copy of a secret is made.
    public static func isPrintable(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar != "\n" && scalar != "\t" && needsEscape(scalar) { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
