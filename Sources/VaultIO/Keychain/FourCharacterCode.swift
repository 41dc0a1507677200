// vault: four-character codes, for the creator and type attributes.

/// A four-character code (`kSecAttrCreator`, `kSecAttrType`): four bytes read as a
/// big-endian `UInt32`, as Apple's `FourCharCode` is.
///
/// ```swift
/// let keychain = Keychain(service: "com.example", vault: vault).creator("EXMP").type("tokn")
/// let code = FourCharacterCode(string: input)  // nil unless exactly four printable ASCII characters
/// let aapl: FourCharacterCode = "aapl"         // a literal; anything but four such characters traps
/// ```
///
/// Named apart from the `FourCharCode` typealias that Apple's SDKs put in scope with Foundation.
public struct FourCharacterCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The code as a number; 0 means "no code" and is not stored.
    public let rawValue: UInt32

    /// A code from its number.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A code from exactly four printable ASCII characters (`" "` to `"~"`); `nil` otherwise.
    public init?(string text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A code from a literal of four printable ASCII characters; anything else is a programming error.
    public init(stringLiteral text: String) {
        guard let code = FourCharacterCode(string: text) else {
            preconditionFailure("a four-character code needs exactly four printable ASCII characters")
        }
        self = code
    }

    /// The four characters when they are printable ASCII, otherwise the number in hexadecimal (`0x0000002A`).
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * $0)) }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            let hex = String(rawValue, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
