// vault: the padded names sealed in the header: a recipient's name and an access group's name.

/// A name as the header seals it: `LE8(n) || name || 0x00*(64 − n)`, `n = len(name)` in UTF-8
/// bytes. A recipient stanza's info (after the 32-byte key) and an access-group entry's sealed
/// name both hold one; this is the one encoder and the one decoder of that layout.
///
/// Spec: Spec/format-v1.2.md, "Layout" (R12-RCP-1, field `info`); Spec/format-v2.md, "The access-group
/// field" (R2-GRP-1, field `sealedName`).
enum PaddedName {
    /// The longest name, in UTF-8 bytes (the padded field is one byte longer).
    static let maximumByteCount = 64

    /// `name` with its length byte before it and zero bytes after it, up to ``maximumByteCount``.
    ///
    /// The caller has checked that `name` is at most ``maximumByteCount`` UTF-8 bytes, and wipes
    /// the result.
    static func encode(_ name: String) -> [UInt8] {
        let bytes = Array(name.utf8)
        return [UInt8(bytes.count)] + bytes + [UInt8](repeating: 0, count: maximumByteCount - bytes.count)
    }

    /// The name in `plain` at `offset`, or `nil` when the field is malformed: a length over
    /// ``maximumByteCount``, a non-zero padding byte, or bytes that are not UTF-8.
    static func decode(_ plain: [UInt8], at offset: Int) -> String? {
        let length = Int(plain[offset])
        let start = offset + 1
        guard length <= maximumByteCount, plain[(start + length)...].allSatisfy({ $0 == 0 }) else { return nil }
        return String(validating: plain[start..<start + length], as: UTF8.self)
    }
}
