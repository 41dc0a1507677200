// vault: little-endian byte writing.

/// Appends little-endian values to a growing byte array.
package struct ByteWriter {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// Starts an empty buffer, reserving `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends a `u8`.
    public mutating func u8(_ value: UInt8) { bytes.append(value) }
    /// Appends a little-endian `u16`.
    public mutating func u16(_ value: UInt16) { integer(UInt64(value), 2) }
    /// Appends a little-endian `u32`.
    public mutating func u32(_ value: UInt32) { integer(UInt64(value), 4) }
    /// Appends a little-endian `u64`.
    public mutating func u64(_ value: UInt64) { integer(value, 8) }
    /// Appends a little-endian `i64`.
    public mutating func i64(_ value: Int64) { integer(UInt64(bitPattern: value), 8) }
    /// Appends raw bytes.
    public mutating func append(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }

    /// Appends a minimal unsigned LEB128 (values below 2^21).
    public mutating func varint(_ value: Int) {
        precondition(value >= 0 && value < 1 << 21)
        var rest = value
        repeat {
            let low = UInt8(rest & 0x7F)
            rest >>= 7
            bytes.append(rest == 0 ? low : low | 0x80)
        } while rest != 0
    }

    /// Appends `LE16(len(s)) || s`: the spec's `S(x)`.
    public mutating func lengthPrefixed(_ data: some Collection<UInt8>) {
        u16(UInt16(data.count))
        append(data)
    }

    private mutating func integer(_ value: UInt64, _ size: Int) {
        for shift in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
    }
}
