// vaulttool run: replacing secrets, and the ways programs commonly encode them, in a byte stream.

import Glibc
import VaultIO

/// Replaces every occurrence of a set of secrets in a stream of bytes with ``replacement``.
///
/// Each secret is searched for in its raw form and in the forms programs commonly print it in
/// (``forms(of:)``): base64 (standard and URL-safe alphabets, with and without padding),
/// percent-encoding and JSON string escaping. Matching is leftmost-longest, so a padded base64
/// form wins over its unpadded prefix.
///
/// The masker streams: ``feed(_:)`` returns every byte that can no longer be part of a match and
/// keeps back only a tail that is a proper prefix of some form (at most the longest form minus one
/// byte), so memory stays bounded whatever the length of the stream, and output that cannot be a
/// secret (a prompt) is passed on at once. ``finish()`` returns the tail at the end of the stream.
///
/// ```swift
/// var masker = OutputMasker(secrets: [Array("hunter2".utf8)])
/// let out = masker.feed(Array("pass: hun".utf8)) + masker.feed(Array("ter2\n".utf8)) + masker.finish()
/// // "pass: <concealed by vault>\n"
/// ```
///
/// Spec: Spec/cli.md, "run" (Masking).
struct OutputMasker {
    /// What a secret is replaced with.
    static let replacement = Array("<concealed by vault>".utf8)

    /// Every form of every secret, longest first, without duplicates.
    private var patterns: [[UInt8]]
    /// For each byte value, the indices in ``patterns`` of the forms that start with it (longest first).
    private var byFirstByte: [[Int]]
    /// Whether any form starts with the byte value.
    private var starts: [Bool]
    /// Bytes that may still begin a match, kept until more arrive or the stream ends.
    private var pending: [UInt8] = []

    /// The length of the longest form; the tail kept back is always shorter.
    let longestForm: Int

    /// Whether there is nothing to mask (no secret, or only empty ones).
    var isEmpty: Bool { patterns.isEmpty }

    /// A masker for `secrets`; empty secrets are ignored.
    init(secrets: [[UInt8]]) {
        var unique = Set<[UInt8]>()
        for secret in secrets where !secret.isEmpty {
            for form in Self.forms(of: secret) where !form.isEmpty { unique.insert(form) }
        }
        patterns = unique.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        byFirstByte = Array(repeating: [], count: 256)
        starts = Array(repeating: false, count: 256)
        for (index, pattern) in patterns.enumerated() {
            byFirstByte[Int(pattern[0])].append(index)
            starts[Int(pattern[0])] = true
        }
        longestForm = patterns.first?.count ?? 0
    }

    /// Takes the next bytes of the stream and returns the masked bytes that are ready.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        if patterns.isEmpty { return Array(bytes) }
        var data = pending
        data.append(contentsOf: bytes)
        SecretMemory.wipe(&pending)
        let (out, kept) = scan(data, final: false)
        pending = Array(data[kept...])
        SecretMemory.wipe(&data)
        return out
    }

    /// Takes the next bytes of the stream and returns the masked bytes that are ready.
    mutating func feed(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Ends the stream: returns the bytes kept back, masked.
    mutating func finish() -> [UInt8] {
        var data = pending
        SecretMemory.wipe(&pending)
        let (out, _) = scan(data, final: true)
        SecretMemory.wipe(&data)
        return out
    }

    /// Overwrites the forms and the tail kept back (the masker is empty afterwards).
    mutating func wipe() {
        for index in patterns.indices { SecretMemory.wipe(&patterns[index]) }
        patterns = []
        SecretMemory.wipe(&pending)
        byFirstByte = Array(repeating: [], count: 256)
        starts = Array(repeating: false, count: 256)
    }

    /// Masks `data`; returns the output and where the tail to keep back starts (`data.count` when
    /// nothing is kept, always so when `final`).
    private func scan(_ data: [UInt8], final: Bool) -> ([UInt8], Int) {
        var out = [UInt8]()
        out.reserveCapacity(data.count)
        let count = data.count
        var index = 0
        var runStart = 0
        var keepFrom = count
        data.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                outer: while index < count {
                    // Skip bytes that begin no form.
                    while index < count && !starts[Int(bytes[index])] { index += 1 }
                    if index == count { break }
                    var matched = 0
                    for candidate in byFirstByte[Int(bytes[index])] {
                        let pattern = patterns[candidate]
                        let available = count - index
                        if pattern.count > available {
                            // A longer form could still match once more bytes arrive: wait for them.
                            if !final && Self.hasPrefix(pattern, bytes, from: index, length: available) {
                                keepFrom = index
                                break outer
                            }
                            continue
                        }
                        if Self.hasPrefix(pattern, bytes, from: index, length: pattern.count) {
                            matched = pattern.count
                            break
                        }
                    }
                    if matched > 0 {
                        out.append(contentsOf: bytes[runStart..<index])
                        out.append(contentsOf: Self.replacement)
                        index += matched
                        runStart = index
                    } else {
                        index += 1
                    }
                }
                out.append(contentsOf: bytes[runStart..<min(index, keepFrom)])
            }
        }
        return (out, keepFrom)
    }

    /// Whether `bytes[from..<from+length]` equals the first `length` bytes of `pattern`.
    private static func hasPrefix(
        _ pattern: [UInt8],
        _ bytes: UnsafeBufferPointer<UInt8>,
        from: Int,
        length: Int
    ) -> Bool {
        pattern.withUnsafeBufferPointer { pattern in
            memcmp(pattern.baseAddress!, bytes.baseAddress! + from, length) == 0
        }
    }

    /// Overwrites the buffer of `bytes` in place, without the copy that mutating a shared array
    /// makes, so every array sharing it reads zeros afterwards. Only for the end of a secret's life.
    static func wipeShared(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
        }
    }
}

// MARK: - Forms

extension OutputMasker {
    /// The forms of `secret` that are masked: the secret itself, and without one trailing newline
    /// (`LF` or `CR LF`); each of those in base64 (standard and URL-safe alphabets, each with and
    /// without `=` padding), percent-encoded (RFC 3986 unreserved characters kept, upper- and
    /// lower-case hex digits; `application/x-www-form-urlencoded` with `+` for a space; and as
    /// JavaScript's `encodeURIComponent`, which also keeps `!'()*`), and JSON-string-escaped (the
    /// minimal escaping of JSON.stringify and most encoders, the same with `\/` for `/`, ASCII-only
    /// with `\uXXXX` as Python writes it, and Go's HTML-safe escaping of `<`, `>`, `&`, U+2028 and
    /// U+2029). Duplicates are left to the caller.
    static func forms(of secret: [UInt8]) -> [[UInt8]] {
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
