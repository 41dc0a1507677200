// vault: what systemd asks the credential server for, read from the peer's socket address.

/// The unit and credential ID systemd names in the abstract address it binds before connecting:
/// `NUL RANDOM "/unit/" UNIT "/" ID`, RANDOM a random number in hex.
///
/// Spec: Spec/agent.md, sections 7.1 and 7.3 (R-CS-5).
public struct CredentialRequest: Equatable, Sendable {
    /// The unit that starts.
    public let unit: String
    /// The credential ID of its `LoadCredential=`.
    public let credential: String

    /// Why an address is not a request, for the log.
    public enum Refusal: Error, Equatable {
        /// The peer bound no name at all (`connect` without `bind`).
        case unnamed
        /// A file-system name, not an abstract one.
        case notAbstract
        /// An abstract name not in systemd's shape.
        case malformed
    }

    /// Parses `address`, the `sun_path` bytes `getpeername` returned.
    public static func parse(_ address: [UInt8]) throws(Refusal) -> CredentialRequest {
        guard let first = address.first else { throw .unnamed }
        guard first == 0 else { throw .notAbstract }
        let parts = address.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 4, isRandom(parts[0]), Array(parts[1]) == Array("unit".utf8),
            let unit = String(validating: parts[2], as: UTF8.self),
            let credential = String(validating: parts[3], as: UTF8.self),
            CredentialServerConfig.unitProblem(unit) == nil,
            CredentialServerConfig.credentialProblem(credential) == nil
        else { throw .malformed }
        return CredentialRequest(unit: unit, credential: credential)
    }

    /// Letters and digits, at most 64: systemd writes a 64-bit random number with `%" PRIx64 "`
    /// (1 to 16 lowercase hex digits); its manual only promises "alphadecimal characters", so
    /// any letters and digits are accepted. The part carries no meaning.
    private static func isRandom(_ bytes: ArraySlice<UInt8>) -> Bool {
        (1...64).contains(bytes.count)
            && bytes.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
    }
}
