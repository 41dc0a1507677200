// vault: item identifiers.

/// A random 128-bit item identifier, stable for the item's life: the vault's
/// persistent reference.
public struct ItemID: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    /// The first eight bytes, big-endian, so that numeric order is byte order.
    public let high: UInt64
    /// The last eight bytes, big-endian.
    public let low: UInt64

    /// The byte count of an identifier.
    public static let byteCount = 16

    /// Reads an identifier from 16 bytes.
    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16)
        var h: UInt64 = 0
        var l: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { h = h << 8 | UInt64(byte) } else { l = l << 8 | UInt64(byte) }
        }
        high = h
        low = l
    }

    /// An identifier from its two big-endian halves.
    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A fresh random identifier.
    public init(random: some RandomSource) { self.init(bytes: random.bytes(16)) }

    /// Parses 32 hexadecimal digits.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex), bytes.count == 16 else { return nil }
        self.init(bytes: bytes)
    }

    /// The 16 bytes.
    public var bytes: [UInt8] {
        (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * (7 - index % 8))) }
    }

    public var description: String { Hex.encode(bytes) }

    public static func < (a: ItemID, b: ItemID) -> Bool { (a.high, a.low) < (b.high, b.low) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ItemID(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad item ID"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Lower-case hexadecimal.
package enum Hex {
    /// Encodes bytes as lower-case hex.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex (either case); `nil` for odd length or a non-hex digit.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let hi = nibble(chars[index]), let lo = nibble(chars[index + 1]) else { return nil }
            out.append(hi << 4 | lo)
            index += 2
        }
        return out
    }
}
