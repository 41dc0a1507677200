// vault: the forms of a secret the masker looks for: raw, base64, percent-encoded, JSON-escaped.

extension OutputMasker {
    /// The forms of `secret` that are masked: the secret itself, and without one trailing newline
    /// (`LF` or `CR LF`); each of those in base64 (standard and URL-safe alphabets, each with and
    /// without `=` padding), percent-encoded (RFC 3986 unreserved characters kept, upper- and
    /// lower-case hex digits; `application/x-www-form-urlencoded` with `+` for a space; and as
    /// JavaScript's `encodeURIComponent`, which also keeps `!'()*`), and JSON-string-escaped (the
    /// minimal escaping of JSON.stringify and most encoders, the same with `\/` for `/`, ASCII-only
    /// with `\uXXXX` as Python writes it, and Go's HTML-safe escaping of `<`, `>`, `&`, U+2028 and
    /// U+2029). Duplicates are left to the caller.
    public static func forms(of secret: [UInt8]) -> [[UInt8]] {
        var bases = [secret]
        if secret.last == 0x0A {
            var trimmed = Array(secret.dropLast())
            if trimmed.last == 0x0D { trimmed.removeLast() }
            if !trimmed.isEmpty { bases.append(trimmed) }
        }
        var forms = [[UInt8]]()
        for base in bases {
            forms.append(base)
            for alphabet in [Base64.standard, Base64.urlSafe] {
                let encoded = Base64.encode(base, alphabet: alphabet)
                forms.append(encoded)
                var unpadded = encoded
                while unpadded.last == UInt8(ascii: "=") { unpadded.removeLast() }
                forms.append(unpadded)
            }
            forms.append(Percent.encode(base, keeping: Percent.unreserved, upperCase: true))
            forms.append(Percent.encode(base, keeping: Percent.unreserved, upperCase: false))
            forms.append(Percent.encode(base, keeping: Percent.unreserved, upperCase: true, spaceAsPlus: true))
            forms.append(Percent.encode(base, keeping: Percent.uriComponent, upperCase: true))
            forms.append(JSONEscape.encode(base, style: .minimal))
            forms.append(JSONEscape.encode(base, style: .escapedSlash))
            forms.append(JSONEscape.encode(base, style: .htmlSafe))
            if let ascii = JSONEscape.asciiOnly(base) {
                forms.append(ascii)
                forms.append(JSONEscape.upperCaseEscapes(ascii))  // `\u00E9`, as Java and others write it
                forms.append(ascii.flatMap { $0 == 0x2F ? Array("\\/".utf8) : [$0] })  // PHP's json_encode
            }
            // Python's urllib.parse.quote keeps `/` by default.
            forms.append(Percent.encode(base, keeping: Percent.unreserved.union([0x2F]), upperCase: true))
            // base64 wrapped as `base64` (76 columns, MIME) and `openssl base64` (64, PEM) write it.
            let encoded = Base64.encode(base, alphabet: Base64.standard)
            for width in [76, 64] where encoded.count > width {
                forms.append(
                    stride(from: 0, to: encoded.count, by: width).flatMap { start in
                        (start == 0 ? [] : [0x0A]) + encoded[start..<min(start + width, encoded.count)]
                    }
                )
            }
            // A terminal's line discipline writes each LF as CR LF (ONLCR): a secret with a
            // newline reaches a pseudo-terminal in that form.
            if base.contains(0x0A) {
                forms.append(
                    base.enumerated().flatMap { index, byte in
                        byte == 0x0A && (index == 0 || base[index - 1] != 0x0D) ? [0x0D, 0x0A] : [byte]
                    }
                )
            }
        }
        return forms
    }
}

/// Base64 (RFC 4648), for the masker's forms.
private enum Base64 {
    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The padded encoding of `bytes`.
    static func encode(_ bytes: [UInt8], alphabet: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(index + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return out
    }
}

/// Percent-encoding (RFC 3986), for the masker's forms.
private enum Percent {
    /// RFC 3986 unreserved: letters, digits, `-`, `.`, `_`, `~`.
    static let unreserved: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    )
    /// What JavaScript's `encodeURIComponent` keeps: the unreserved characters and `!'()*`.
    static let uriComponent: Set<UInt8> = unreserved.union(Array("!'()*".utf8))

    static func encode(_ bytes: [UInt8], keeping: Set<UInt8>, upperCase: Bool, spaceAsPlus: Bool = false) -> [UInt8] {
        let digits = Array((upperCase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = [UInt8]()
        for byte in bytes {
            if keeping.contains(byte) {
                out.append(byte)
            } else if spaceAsPlus && byte == 0x20 {
                out.append(UInt8(ascii: "+"))
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return out
    }
}

/// The text of a JSON string literal without its quotes (RFC 8259), for the masker's forms.
private enum JSONEscape {
    enum Style { case minimal, escapedSlash, htmlSafe }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func unicodeEscape(_ value: UInt32, into out: inout [UInt8]) {
        out += Array("\\u".utf8)
        for shift in [12, 8, 4, 0] { out.append(hex[Int(value >> UInt32(shift) & 15)]) }
    }

    /// Escapes `"`, `\` and the control characters (short forms `\b \f \n \r \t`); other bytes are
    /// kept. `.escapedSlash` also writes `/` as `\/`; `.htmlSafe` (Go) writes `<`, `>`, `&`,
    /// U+2028 and U+2029 as `\uXXXX`.
    static func encode(_ bytes: [UInt8], style: Style) -> [UInt8] {
        var out = [UInt8]()
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x00..<0x20: unicodeEscape(UInt32(byte), into: &out)
            case 0x2F where style == .escapedSlash: out += Array("\\/".utf8)
            case 0x3C where style == .htmlSafe, 0x3E where style == .htmlSafe, 0x26 where style == .htmlSafe:
                unicodeEscape(UInt32(byte), into: &out)
            case 0xE2
            where style == .htmlSafe && index + 1 < bytes.count && bytes[index] == 0x80
                && (bytes[index + 1] == 0xA8 || bytes[index + 1] == 0xA9):
                unicodeEscape(bytes[index + 1] == 0xA8 ? 0x2028 : 0x2029, into: &out)
                index += 2
            default: out.append(byte)
            }
        }
        return out
    }

    /// `escaped` with the hex digits of every `\uXXXX` in upper case.
    static func upperCaseEscapes(_ escaped: [UInt8]) -> [UInt8] {
        var out = escaped
        var index = 0
        while index + 5 < out.count {
            if out[index] == 0x5C && out[index + 1] == UInt8(ascii: "u") {
                for digit in index + 2..<index + 6 where (0x61...0x66).contains(out[digit]) { out[digit] -= 0x20 }
                index += 6
            } else {
                index += out[index] == 0x5C ? 2 : 1
            }
        }
        return out
    }

    /// Python's `json.dumps` escaping (`ensure_ascii`): as ``encode(_:style:)`` minimal, with DEL
    /// and every non-ASCII character as `\uXXXX` (UTF-16 surrogate pairs above U+FFFF); `nil` when
    /// `bytes` is not UTF-8.
    static func asciiOnly(_ bytes: [UInt8]) -> [UInt8]? {
        var scalars = [Unicode.Scalar]()
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break decoding
            case .error: return nil
            }
        }
        var out = [UInt8]()
        for scalar in scalars {
            if scalar.value < 0x80 && scalar.value != 0x7F {
                out += encode([UInt8(scalar.value)], style: .minimal)
            } else {
                for unit in String(scalar).utf16 { unicodeEscape(UInt32(unit), into: &out) }
            }
        }
        return out
    }
}
