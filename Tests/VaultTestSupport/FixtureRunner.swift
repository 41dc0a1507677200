// vault: opening a fixture case the way the manifest says.

import Foundation
import VaultFormat

/// Runs manifest cases against the format library.
public enum FixtureRunner {
    /// `Fixtures/` at the top of the package.
    public static let fixturesRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The bytes of `name` in fixture folder `version` (for example `v1`).
    public static func bytes(_ name: String, version: String = "v1") throws -> [UInt8] {
        Array(try Data(contentsOf: fixturesRoot.appendingPathComponent(version).appendingPathComponent(name)))
    }

    /// The landed manifest of a fixture folder.
    public static func manifest(version: String = "v1") throws -> FixtureManifest {
        try FixtureManifest.decode(try bytes("manifest.json", version: version))
    }

    /// The expected items of a success case.
    public static func expectedItems(_ fixture: FixtureCase, version: String = "v1") throws -> [FixtureItem] {
        if let list = fixture.itemsFile {
            return try JSONDecoder().decode([FixtureItem].self, from: Data(try bytes(list, version: version)))
        }
        return fixture.items ?? []
    }

    /// The credentials a case offers.
    public static func credentials(_ fixture: FixtureCase, version: String = "v1") throws -> Credentials {
        var credentials = Credentials()
        if let password = fixture.credentials.password { credentials.password = SecretBytes(utf8: password) }
        if let keyFile = fixture.credentials.keyFile {
            credentials.keyFile = SecretBytes(bytes: try bytes(keyFile, version: version))
        }
        if let hex = fixture.credentials.deviceSecret, let device = Hex.decode(hex) {
            credentials.deviceSecret = DeviceSecret(secret: SecretBytes(bytes: device))
        }
        if let identity = fixture.credentials.identity {
            credentials.identity = try RecipientIdentity(fileContents: try bytes(identity, version: version))
        }
        return credentials
    }

    /// What opening a file fully produced.
    public struct Opened {
        /// The snapshot.
        public var snapshot: VaultSnapshot
        /// Every readable item, with secrets.
        public var items: [DecodedItem]
        /// Items the credentials could not read.
        public var unavailable: Int
    }

    /// Opens `file` and reads every item and secret, then verifies the whole vault.
    ///
    /// - Throws: The first ``VaultFormatError`` met.
    public static func openFully(_ file: [UInt8], with credentials: Credentials) throws -> Opened {
        let snapshot = try VaultSnapshot.open(file, with: credentials)
        let items = try snapshot.items(includeSecrets: true, skipUnavailable: true)
        _ = try snapshot.verify()
        return Opened(snapshot: snapshot, items: items, unavailable: try snapshot.index.entries.count - items.count)
    }

    /// Describes how `item` differs from `expected`, or `nil` when they match.
    public static func mismatch(_ item: DecodedItem, _ expected: FixtureItem) -> String? {
        if item.entry.itemID.description != expected.id { return "item ID" }
        if item.entry.itemClass.description != expected.itemClass { return "item class" }
        if item.entry.protectionClass.description != expected.protectionClass { return "protection class" }
        if item.attributes != expected.attributes { return "attributes" }
        guard let secret = item.secret?.copyBytes() else { return "secret missing" }
        if secret.count != expected.secretLength { return "secret length" }
        if Hex.encode(BLAKE2b.hash(secret, length: 32)) != expected.secretBLAKE2b { return "secret digest" }
        if let text = expected.secret, Array(text.utf8) != secret { return "secret text" }
        return nil
    }
}
