// vault: VaultFormat errors.

/// An error from decoding, encoding or decrypting vault bytes.
///
/// Only ``code`` takes part in `==`, so tests can write
/// `#expect(throws: VaultFormatError(.badMagic))`. The ``reason`` never holds a
/// secret, an item attribute or a password.
public struct VaultFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A kind of failure. New codes may be added in minor releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code, as used in `Fixtures/v1/manifest.json`.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The file does not start with the vault magic.
        public static let notAVault = Code("notAVault")
        /// The file's major version is newer than this reader.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// The file carries a critical header field this reader does not know.
        public static let unsupportedFeature = Code("unsupportedFeature")
        /// The file ends early.
        public static let truncated = Code("truncated")
        /// A length, count or layout rule is broken.
        public static let structure = Code("structure")
        /// The header checksum does not match: accidental damage.
        public static let headerCorrupt = Code("headerCorrupt")
        /// The header MAC does not verify with the unlocked key: deliberate change.
        public static let headerAuthentication = Code("headerAuthentication")
        /// KDF parameters are outside the documented ceilings or floors.
        public static let kdfRejected = Code("kdfRejected")
        /// No keyslot opens with the given credentials.
        public static let wrongCredential = Code("wrongCredential")
        /// The index does not decrypt or breaks an index rule.
        public static let indexCorrupt = Code("indexCorrupt")
        /// A record does not decrypt or breaks a record rule.
        public static let recordCorrupt = Code("recordCorrupt")
        /// A device-bound item belongs to another device.
        public static let foreignDevice = Code("foreignDevice")
        /// A documented limit is exceeded.
        public static let limit = Code("limit")
        /// A caller passed a value the format cannot hold.
        public static let invalidParameter = Code("invalidParameter")
        /// The key needed for this protection class is not available.
        public static let keyUnavailable = Code("keyUnavailable")
        /// A `…ThisDeviceOnly` item was to be written without this machine's device secret.
        public static let deviceSecretRequired = Code("deviceSecretRequired")
        /// A crypto primitive failed (for example, memory could not be allocated).
        public static let cryptoFailure = Code("cryptoFailure")

        /// Every code, for documentation and manifest checks.
        public static let all: [Code] = [
            .notAVault, .unsupportedVersion, .unsupportedFeature, .truncated, .structure, .headerCorrupt,
            .headerAuthentication, .kdfRejected, .wrongCredential, .indexCorrupt, .recordCorrupt,
            .foreignDevice, .limit, .invalidParameter, .keyUnavailable, .deviceSecretRequired, .cryptoFailure,
        ]

        /// Looks up a code by its stable name.
        public init?(name: String) {
            guard let code = Code.all.first(where: { $0.name == name }) else { return nil }
            self = code
        }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for a person. Never contains secrets or item attributes.
    public let reason: String
    /// Where the error was raised, for bug reports.
    public let fileID: String
    /// Where the error was raised, for bug reports.
    public let line: Int
    /// For ``Code/unsupportedVersion``: the format version the file declares, so that a caller
    /// can say which version is needed without reading ``reason``.
    public let formatVersion: FormatVersion?

    /// Creates an error.
    public init(_ code: Code, _ reason: String = "", fileID: String = #fileID, line: Int = #line) {
        self.init(code, reason, formatVersion: nil, fileID: fileID, line: line)
    }

    /// Creates an error that names the file's format version (``Code/unsupportedVersion``).
    public init(
        _ code: Code,
        _ reason: String = "",
        formatVersion: FormatVersion?,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.reason = reason
        self.formatVersion = formatVersion
        self.fileID = fileID
        self.line = line
    }

    public static func == (lhs: VaultFormatError, rhs: VaultFormatError) -> Bool { lhs.code == rhs.code }

    public var description: String { reason.isEmpty ? code.name : "\(code.name): \(reason)" }
}

/// A vault file's format version, `major.minor` (Spec/format-v1.md, R-HDR-2 and R-HDR-3).
public struct FormatVersion: Hashable, Sendable, CustomStringConvertible {
    /// The major version: a reader refuses a major version it does not know.
    public let major: UInt16
    /// The minor version: a newer minor is read, and not written.
    public let minor: UInt16

    /// Creates a version.
    public init(major: UInt16, minor: UInt16) {
        self.major = major
        self.minor = minor
    }

    public var description: String { "\(major).\(minor)" }
}
