// vault: a bounds-checked reader over untrusted bytes.

/// Reads little-endian values from a byte buffer, checking every length against
/// what remains before it is used.
///
/// Every failing read throws the error code the reader was created with, so a
/// header reader reports `structure` and a record reader `recordCorrupt`.
package struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    /// The absolute index of the next byte.
    public private(set) var position: Int
    private let failure: VaultFormatError.Code

    /// Reads `bytes`; reads past the end throw `failure`.
    public init(_ bytes: ArraySlice<UInt8>, failure: VaultFormatError.Code = .structure) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.failure = failure
    }

    /// Reads a whole array.
    public init(_ bytes: [UInt8], failure: VaultFormatError.Code = .structure) {
        self.init(bytes[...], failure: failure)
    }

    /// The number of unread bytes.
    public var remaining: Int { bytes.endIndex - position }
    /// Whether every byte has been read.
    public var isAtEnd: Bool { remaining == 0 }

    /// Reads `count` bytes.
    public mutating func read(_ count: Int, _ what: @autoclosure () -> String) throws(VaultFormatError)
        -> ArraySlice<UInt8>
    {
        try require(count, what())
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// Reads a big-endian `u64` (the lookup tags, item IDs and event IDs of format 3, which sort
    /// as bytes).
    package mutating func u64BigEndian(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt64 {
        try require(8, what())
        let start = position - bytes.startIndex
        position += 8
        return bytes.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt64.self)) }
    }

    /// Throws `failure` unless `count` bytes remain.
    @inline(__always)
    private func require(_ count: Int, _ what: @autoclosure () -> String) throws(VaultFormatError) {
        guard count >= 0, count <= remaining else { throw shortRead(count, what()) }
    }

    /// The error of a read past the end, built out of line so that every read stays small enough to
    /// inline.
    @inline(never)
    private func shortRead(_ count: Int, _ what: String) -> VaultFormatError {
        VaultFormatError(failure, "\(what) needs \(count) bytes but only \(remaining) remain")
    }

    /// Reads a `u8`.
    public mutating func u8(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt8 {
        try integer(UInt8.self, what())
    }

    /// Reads a little-endian `u16`.
    public mutating func u16(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt16 {
        try integer(UInt16.self, what())
    }

    /// Reads a little-endian `u32`.
    public mutating func u32(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt32 {
        try integer(UInt32.self, what())
    }

    /// Reads a little-endian `u64`.
    public mutating func u64(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt64 {
        try integer(UInt64.self, what())
    }

    /// Reads a little-endian `i64`.
    public mutating func i64(_ what: @autoclosure () -> String) throws(VaultFormatError) -> Int64 {
        Int64(bitPattern: try integer(UInt64.self, what()))
    }

    /// Reads a minimal unsigned LEB128 of at most 3 bytes (values below 2^21).
    ///
    /// Spec: Spec/format-v1.md, "Attributes" (R-ATT-1).
    public mutating func varint(_ what: @autoclosure () -> String) throws(VaultFormatError) -> Int {
        var value = 0
        for index in 0..<3 {
            let byte = try u8(what())
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 {
                guard index == 0 || byte != 0 else {
                    throw VaultFormatError(failure, "\(what()) has a non-minimal length")
                }
                return value
            }
        }
        throw VaultFormatError(failure, "\(what()) has a length longer than 3 bytes")
    }

    /// Reads a little-endian integer straight from the buffer: no slice is made, since every
    /// format-3 tree entry reads several.
    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>(_: T.Type, _ what: @autoclosure () -> String)
        throws(VaultFormatError) -> T
    {
        try require(MemoryLayout<T>.size, what())
        let start = position - bytes.startIndex
        position += MemoryLayout<T>.size
        return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: T.self)) }
    }
}
