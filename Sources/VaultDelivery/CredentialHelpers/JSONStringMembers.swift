// vault: reading docker's `store` payload without copying the secret into a String.

import VaultIO

/// The string members of one JSON object, as bytes, read the way Go's `encoding/json` decodes
/// docker's `Credentials` struct into it: member names match case-insensitively (ASCII), the last
/// of a repeated name wins, members of other names are skipped whatever their value, and a
/// `null` value is no value. Values stay in byte arrays that ``wipe()`` zeroes, so the secret is
/// never held by a `String` (which cannot be wiped).
///
/// Spec: RFC 8259 (the grammar); Spec/cli.md, "credential-helper", docker.
struct JSONStringMembers {
    /// Values of the wanted names (lower-cased), as UTF-8.
    private(set) var values: [String: [UInt8]] = [:]

    /// A payload that is not one JSON object, or a wanted member that is not a string.
    struct Invalid: Error {}

    /// Parses `bytes`, keeping the members named in `wanted` (lower case); anything after the
    /// object is ignored, as Go's `Decoder.Decode` ignores it.
    init(_ bytes: [UInt8], wanted: Set<String>) throws(Invalid) {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        try parser.expect(UInt8(ascii: "{"))
        parser.skipSpace()
        if parser.peek == UInt8(ascii: "}") { return }
        while true {
            parser.skipSpace()
            var name = try parser.string()
            let key = String(decoding: name, as: UTF8.self).lowercased()
            SecretMemory.wipe(&name)
            parser.skipSpace()
            try parser.expect(UInt8(ascii: ":"))
            parser.skipSpace()
            if wanted.contains(key) {
                if parser.peek == UInt8(ascii: "n") {
                    try parser.literal("null")
                    if var old = values.removeValue(forKey: key) { SecretMemory.wipe(&old) }
                } else {
                    guard parser.peek == UInt8(ascii: "\"") else { throw Invalid() }
                    let value = try parser.string()
                    if var old = values.updateValue(value, forKey: key) { SecretMemory.wipe(&old) }
                }
            } else {
                try parser.skipValue(depth: 0)
            }
            parser.skipSpace()
            if parser.peek == UInt8(ascii: ",") {
                parser.index += 1
                continue
            }
            try parser.expect(UInt8(ascii: "}"))
            return
        }
    }

    /// Zeroes every value.
    mutating func wipe() {
        for key in Array(values.keys) {
            var value = values.removeValue(forKey: key)!
            SecretMemory.wipe(&value)
        }
    }

    // MARK: - Parser

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(Invalid) {
            guard peek == byte else { throw Invalid() }
            index += 1
        }

        mutating func literal(_ word: String) throws(Invalid) {
            for byte in word.utf8 { try expect(byte) }
        }

        /// A string's UTF-8 bytes, escapes resolved.
        mutating func string() throws(Invalid) -> [UInt8] {
            try expect(UInt8(ascii: "\""))
            var out = [UInt8]()
            out.reserveCapacity(64)
            while true {
                guard let byte = peek else { throw Invalid() }
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return out
                case UInt8(ascii: "\\"):
                    guard let escape = peek else { throw Invalid() }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"): try appendEscapedScalar(to: &out)
                    default: throw Invalid()
                    }
                case 0x00..<0x20:
                    throw Invalid()
                default:
                    out.append(byte)
                }
            }
        }

        /// `\uXXXX`, or a surrogate pair `\uD8XX\uDCXX`; a lone surrogate becomes U+FFFD, as in Go.
        private mutating func appendEscapedScalar(to out: inout [UInt8]) throws(Invalid) {
            var value = try hex4()
            if (0xD800..<0xDC00).contains(value), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                let saved = index
                index += 2
                let low = try hex4()
                if (0xDC00..<0xE000).contains(low) {
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    index = saved
                }
            }
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            out += Array(String(scalar).utf8)
        }

        private mutating func hex4() throws(Invalid) -> UInt32 {
            guard bytes.count - index >= 4 else { throw Invalid() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw Invalid()
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// Skips any value (nested at most 64 deep).
        mutating func skipValue(depth: Int) throws(Invalid) {
            guard depth < 64, let byte = peek else { throw Invalid() }
            switch byte {
            case UInt8(ascii: "\""):
                var skipped = try string()
                SecretMemory.wipe(&skipped)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipSpace()
                if peek == close {
                    index += 1
                    return
                }
                while true {
                    skipSpace()
                    if close == UInt8(ascii: "}") {
                        _ = try string()
                        skipSpace()
                        try expect(UInt8(ascii: ":"))
                        skipSpace()
                    }
                    try skipValue(depth: depth + 1)
                    skipSpace()
                    if peek == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(close)
                    return
                }
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                while let next = peek,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) || next == UInt8(ascii: "-")
                        || next == UInt8(ascii: "+") || next == UInt8(ascii: ".") || next == UInt8(ascii: "e")
                        || next == UInt8(ascii: "E")
                {
                    index += 1
                }
                guard index > start else { throw Invalid() }
            default:
                throw Invalid()
            }
        }
    }
}
