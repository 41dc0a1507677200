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
    public mutating func u16(_ value: UInt16) { integer(value.littleEndian) }
    /// Appends a little-endian `u32`.
    public mutating func u32(_ value: UInt32) { integer(value.littleEndian) }
    /// Appends a little-endian `u64`.
    public mutating func u64(_ value: UInt64) { integer(value.littleEndian) }
    /// Appends a little-endian `i64`.
    public mutating func i64(_ value: Int64) { integer(value.littleEndian) }
    /// Appends a big-endian `u64` (the lookup tags, item IDs and event IDs of format 3).
    package mutating func u64BigEndian(_ value: UInt64) { integer(value.bigEndian) }
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

    /// Appends the bytes of `value` as they lie in memory (the caller gives the byte order), in one
    /// append rather than one per byte: a format-3 commit encodes every entry of the nodes it
    /// changes.
    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value) { raw in raw.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) } }
    }
}
