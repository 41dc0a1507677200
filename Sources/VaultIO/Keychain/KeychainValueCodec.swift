// vault: fixed encodings of typed keychain values, tagged with a four-character type code.

import FoundationEssentials

/// How typed values are stored as item secrets.
///
/// | Type | Bytes | `type` attribute |
/// |---|---|---|
/// | `String` | UTF-8 | `strg` |
/// | `Data` | as given | `data` |
/// | `Int` | 8 bytes, two's complement, little-endian | `int8` |
/// | `Bool` | 1 byte, 0 or 1 | `bool` |
/// | `Double` | IEEE 754 bit pattern, 8 bytes little-endian | `dubl` |
/// | `Float` | IEEE 754 bit pattern, 4 bytes little-endian | `flot` |
/// | `Date` | seconds since 1970 as a `Double`, 8 bytes little-endian | `date` |
/// | other `Codable` | JSON | `json` |
///
/// The encodings never depend on the machine (no raw memory). The type code
/// goes in the item's `type` attribute (Apple's `kSecAttrType`), so that reading
/// a value as the wrong type is a ``KeychainError/conversion(expected:stored:)``
/// rather than garbage. `Data` reads any item; `String` reads any UTF-8 item
/// except numbers, Booleans and dates. Items written by other tools (type 0)
/// and items whose type is a code of the app's own (``Keychain/type(_:)``) are
/// decoded by length.
///
/// Spec: Spec/library-semantics.md, "Typed values" (L-KC-4).
public enum KeychainValueCodec {
    /// The four-character code of a type name, big-endian as Apple's are.
    static func code(_ name: String) -> UInt32 { name.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    static let string = code("strg"), data = code("data"), int = code("int8"), bool = code("bool")
    static let double = code("dubl"), float = code("flot"), date = code("date"), json = code("json")

    /// Encodes `value`.
    ///
    /// - Returns: The bytes and the type code.
    /// - Throws: ``KeychainError/conversion(expected:stored:)`` when JSON encoding fails.
    public static func encode<T: Encodable>(_ value: T) throws(KeychainError) -> (bytes: [UInt8], type: UInt32) {
        switch value {
        case let value as String: return (Array(value.utf8), string)
        case let value as Data: return (Array(value), data)
        case let value as Bool: return ([value ? 1 : 0], bool)
        case let value as Int: return (littleEndian(UInt64(bitPattern: Int64(value)), count: 8), int)
        case let value as Double: return (littleEndian(value.bitPattern, count: 8), double)
        case let value as Float: return (littleEndian(UInt64(value.bitPattern), count: 4), float)
        case let value as Date: return (littleEndian(value.timeIntervalSince1970.bitPattern, count: 8), date)
        default:
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return (Array(try encoder.encode(value)), json)
            } catch {
                throw .conversion(expected: "\(T.self)", stored: "a value JSON cannot encode")
            }
        }
    }

    /// Decodes a stored value as `T`.
    ///
    /// - Throws: ``KeychainError/conversion(expected:stored:)`` when the stored type or length does not fit `T`.
    public static func decode<T: Decodable>(_ bytes: [UInt8], type: UInt32, as _: T.Type = T.self)
        throws(KeychainError) -> T
    {
        let failure = KeychainError.conversion(expected: "\(T.self)", stored: describe(type, count: bytes.count))
        func fixed(_ wanted: UInt32, _ count: Int) throws(KeychainError) -> UInt64 {
            guard type == wanted || !isLibraryCode(type), bytes.count == count else { throw failure }
            return bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let value: Any
        switch T.self {
        case is Data.Type: value = Data(bytes)
        case is String.Type:
            guard ![int, bool, double, float, date].contains(type), let text = String(validating: bytes, as: UTF8.self)
            else { throw failure }
            value = text
        case is Int.Type: value = Int(truncatingIfNeeded: Int64(bitPattern: try fixed(int, 8)))
        case is Bool.Type:
            let raw = try fixed(bool, 1)
            guard raw <= 1 else { throw failure }
            value = raw == 1
        case is Double.Type: value = Double(bitPattern: try fixed(double, 8))
        case is Float.Type: value = Float(bitPattern: UInt32(try fixed(float, 4)))
        case is Date.Type: value = Date(timeIntervalSince1970: Double(bitPattern: try fixed(date, 8)))
        default:
            guard ![int, bool, double, float, date].contains(type) else { throw failure }
            do {
                value = try JSONDecoder().decode(T.self, from: Data(bytes))
            } catch {
                throw failure
            }
        }
        guard let typed = value as? T else { throw failure }
        return typed
    }

    /// Whether `type` is one of the codes above (not 0, not an app's own code from ``Keychain/type(_:)``).
    static func isLibraryCode(_ type: UInt32) -> Bool {
        [string, data, int, bool, double, float, date, json].contains(type)
    }

    /// A name for a stored type code, for conversion errors.
    static func describe(_ type: UInt32, count: Int) -> String {
        let names: [UInt32: String] = [
            string: "String", data: "Data", int: "Int", bool: "Bool", double: "Double", float: "Float", date: "Date",
            json: "JSON",
        ]
        return names[type] ?? "\(count) untyped bytes"
    }

    private static func littleEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
