// vault: the one owner of plain byte buffers that held a secret: wipe, compare, trim.

/// What every layer does with a plain `[UInt8]` that held a secret (a password read from a file,
/// a rendered template, a protocol line), so that there is one wipe, one constant-time compare
/// and one trim, all of which leave no copy behind. ``SecretBytes`` manages its own memory.
///
/// ```swift
/// var line = try readLine()
/// defer { SecretMemory.wipe(&line) }
/// SecretMemory.trimNewline(&line)
/// ```
public enum SecretMemory {
    /// Zeroes `bytes` in a way the compiler cannot remove, then empties the array.
    ///
    /// The corresponding C function is `sodium_memzero`.
    public static func wipe(_ bytes: inout [UInt8]) { Sodium.wipe(&bytes) }

    /// Whether `a` and `b` hold the same bytes: `false` for different lengths, and for equal
    /// lengths a comparison whose time does not depend on where they differ.
    ///
    /// The corresponding C function is `sodium_memcmp`.
    public static func equal(_ a: some ReadableBytes, _ b: some ReadableBytes) -> Bool {
        Sodium.constantTimeEqual(a, b)
    }

    /// Removes one trailing `\n` or `\r\n` (as editors and `echo` add), zeroing the removed
    /// bytes first.
    public static func trimNewline(_ bytes: inout [UInt8]) {
        guard bytes.last == 0x0A else { return }
        bytes[bytes.count - 1] = 0
        bytes.removeLast()
        if bytes.last == 0x0D {
            bytes[bytes.count - 1] = 0
            bytes.removeLast()
        }
    }
}
