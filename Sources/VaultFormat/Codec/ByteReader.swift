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
        guard count >= 0, count <= remaining else {
            throw VaultFormatError(failure, "\(what()) needs \(count) bytes but only \(remaining) remain")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// Reads a `u8`.
    public mutating func u8(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt8 {
        try read(1, what()).first!
    }

    /// Reads a little-endian `u16`.
    public mutating func u16(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt16 {
        UInt16(truncatingIfNeeded: try integer(2, what()))
    }

    /// Reads a little-endian `u32`.
    public mutating func u32(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt32 {
        UInt32(truncatingIfNeeded: try integer(4, what()))
    }

    /// Reads a little-endian `u64`.
    public mutating func u64(_ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt64 {
        try integer(8, what())
    }

    /// Reads a little-endian `i64`.
    public mutating func i64(_ what: @autoclosure () -> String) throws(VaultFormatError) -> Int64 {
        Int64(bitPattern: try integer(8, what()))
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

    private mutating func integer(_ size: Int, _ what: @autoclosure () -> String) throws(VaultFormatError) -> UInt64 {
        let slice = try read(size, what())
        var value: UInt64 = 0
        for (shift, byte) in slice.enumerated() { value |= UInt64(byte) << (8 * shift) }
        return value
    }
}
