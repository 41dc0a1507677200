// vault: the manifest that describes every golden fixture.

import Foundation
import VaultFormat

/// `Fixtures/vN/manifest.json`: one case per scenario, in the manner of the age test kit.
public struct FixtureManifest: Codable, Equatable, Sendable {
    /// The format the fixtures are written in, for example `vault v1`.
    public var format: String
    /// How the fixtures were made.
    public var generator: String
    /// The cases, in a stable order.
    public var cases: [FixtureCase]

    /// Encodes the manifest as stable, pretty JSON.
    public func encoded() throws -> [UInt8] {
        Array(try JSONEncoderFactory.make().encode(self)) + [0x0A]
    }

    /// Decodes a manifest.
    public static func decode(_ bytes: [UInt8]) throws -> FixtureManifest {
        try JSONDecoder().decode(FixtureManifest.self, from: Data(bytes))
    }
}

/// One scenario: a file, the credentials offered, and the expected outcome.
public struct FixtureCase: Codable, Equatable, Sendable {
    /// `area_condition`, unique.
    public var name: String
    /// The vault file, relative to the manifest.
    public var file: String
    /// `success` or `failure`.
    public var expect: String
    /// For failures, the ``VaultFormatError/Code`` name.
    public var error: String?
    /// What is offered to open the file.
    public var credentials: FixtureCredentials
    /// For successes, the readable items (or `itemsFile`).
    public var items: [FixtureItem]?
    /// For successes with many items, a JSON file with the items.
    public var itemsFile: String?
    /// For successes, how many items the credentials cannot read (other device, base-scope slot).
    public var unavailable: Int?
    /// Whether a reader must treat the file as read-only (newer minor version).
    public var readOnly: Bool?
    /// Whether the KDF parameters are below the floor for new vaults.
    public var weakKDF: Bool?
    /// What the case is about.
    public var comment: String
    /// Who can write the file with a header MAC that holds, when it is a key holder's edit
    /// (`Fixtures/v2-damage`): `base key`, `limited recipient` or `master key`.
    public var writer: String? = nil
}

/// Credentials of a case. The device secret is hex; the key file is a file name.
public struct FixtureCredentials: Codable, Equatable, Sendable {
    /// The password, as UTF-8 text.
    public var password: String?
    /// A key file next to the manifest.
    public var keyFile: String?
    /// The device secret, 64 hex digits.
    public var deviceSecret: String?
    /// An identity file next to the manifest (format 1.2 recipients).
    public var identity: String?

    /// Creates credentials.
    public init(password: String? = nil, keyFile: String? = nil, deviceSecret: String? = nil, identity: String? = nil) {
        self.password = password
        self.keyFile = keyFile
        self.deviceSecret = deviceSecret
        self.identity = identity
    }
}

/// An expected item.
public struct FixtureItem: Codable, Equatable, Sendable {
    /// The item ID, 32 hex digits.
    public var id: String
    /// `genericPassword` or `internetPassword`.
    public var itemClass: String
    /// The protection class name.
    public var protectionClass: String
    /// Every attribute.
    public var attributes: ItemAttributes
    /// The secret as text, when it is short valid UTF-8.
    public var secret: String?
    /// The secret's length in bytes.
    public var secretLength: Int
    /// BLAKE2b-256 of the secret, hex.
    public var secretBLAKE2b: String
}

/// The one JSON style fixtures use: pretty, sorted keys, so files diff well.
enum JSONEncoderFactory {
    static func make() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
