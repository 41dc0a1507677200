// vault: random passwords from libsodium's generator.

internal import CSodium

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Generates random passwords.
///
/// The default shape is the one Apple's shared web credentials and KeychainAccess
/// use: four groups of three characters joined by hyphens (`xxx-xxx-xxx-xxx`),
/// drawn from letters and digits without look-alikes (`0 O 1 l I`), with at least
/// one lower-case letter, one upper-case letter and one digit: about 70 bits.
///
/// ```swift
/// let password = PasswordGenerator().generate()              // "fkQ-7wa-Rm3-xpZ"
/// let pin = PasswordGenerator(.custom(length: 6, alphabet: "0123456789")).generate()
/// ```
public struct PasswordGenerator: Sendable {
    /// What to generate.
    public enum Shape: Sendable, Hashable {
        /// Four groups of three characters: `xxx-xxx-xxx-xxx`.
        case grouped
        /// `length` characters from `alphabet` (no separators).
        case custom(length: Int, alphabet: String)
    }

    /// Letters and digits without look-alikes.
    public static let unambiguousAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

    /// The shape this generator draws.
    public let shape: Shape

    /// Creates a generator.
    public init(_ shape: Shape = .grouped) { self.shape = shape }

    /// Draws one password.
    ///
    /// - Throws: ``VaultFormatError/Code/invalidParameter`` for a length outside 1...4096 or an
    ///   alphabet with fewer than two distinct characters.
    public func generate() throws(VaultFormatError) -> String {
        switch shape {
        case .grouped:
            let alphabet = Array(Self.unambiguousAlphabet)
            while true {
                let chars = (0..<12).map { _ in alphabet[Self.uniform(alphabet.count)] }
                guard chars.contains(where: \.isLowercase), chars.contains(where: \.isUppercase),
                    chars.contains(where: \.isNumber)
                else { continue }
                return stride(from: 0, to: 12, by: 3).map { String(chars[$0..<$0 + 3]) }.joined(separator: "-")
            }
        case .custom(let length, let alphabet):
            var seen = Set<Character>()
            let unique = alphabet.filter { seen.insert($0).inserted }
            guard (1...4096).contains(length), unique.count >= 2 else {
                throw VaultFormatError(
                    .invalidParameter,
                    "a password needs a length of 1 to 4096 and an alphabet of at least 2 characters"
                )
            }
            let chars = Array(unique)
            return String((0..<length).map { _ in chars[Self.uniform(chars.count)] })
        }
    }

    /// The entropy of one password of this shape, in bits.
    public var entropyBits: Double {
        switch shape {
        case .grouped:
            return 12 * log2(Double(Self.unambiguousAlphabet.count))
        case .custom(let length, let alphabet):
            return Double(length) * log2(Double(Set(alphabet).count))
        }
    }

    /// A uniform integer in `0..<bound`, without modulo bias.
    ///
    /// The corresponding C function is `randombytes_uniform`.
    static func uniform(_ bound: Int) -> Int {
        Sodium.ensure()
        return Int(randombytes_uniform(UInt32(bound)))
    }
}
