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

    // Format 3 (`Fixtures/v3`): absent from the manifests of earlier folders.

    /// Success: the generation of the commit the reader opens (R3-SLT-4).
    public var generation: UInt64? = nil
    /// Success: `true` when the reader opens the commit before a newer one that did not complete,
    /// or beside a damaged slot, and must say so (the note of R3-SLT-4).
    public var skippedCommit: Bool? = nil
    /// Success: how many bytes follow the commit read (the uncommitted tail, R3-SLT-6), when not 0.
    public var uncommittedTail: Int? = nil
    /// Success and merge: every deletion entry of the file (or of the merge's result).
    public var deletions: [FixtureDeletion]? = nil
    /// Merge: the replica files, each opened with ``credentials``.
    public var replicas: [String]? = nil
    /// Merge: the orders to merge the replicas in, each a list of indexes into ``replicas``, merged
    /// from the left (`merge(merge(r0, r1), r2)`: each result is ours, the next replica theirs).
    /// Every order gives ``items`` and ``deletions``.
    public var orders: [[Int]]? = nil
    /// Merge of two replicas: the conflicts the merge lists, in either order (Spec/merge.md R-MRG-7).
    public var conflicts: [FixtureConflict]? = nil
}

/// A deletion entry a format-3 case expects (Spec/format-v3.md §6.3).
public struct FixtureDeletion: Codable, Equatable, Sendable {
    /// The deleted item's ID, 32 hex digits.
    public var id: String
    /// `deletedAt`, milliseconds.
    public var deletedAt: Int64
    /// The history, each event 16 hex digits, the current event first (§8).
    public var history: [String]
    /// The entry's lookup tag, 16 hex digits (`0000000000000000` for a migrated deletion, §11);
    /// absent in merge cases.
    public var tag: String? = nil
    /// The scope whose tree holds the entry, `[kind, domain]` (§2.5); absent in merge cases.
    public var scope: [Int]? = nil
    /// Merge: for each replica, what the merged state is to that replica's state of the ID:
    /// `equal`, `descends` (its history holds the replica's current event) or `absent` (the replica
    /// has no entry of the ID).
    public var relations: [String]? = nil

    /// Creates an expected deletion entry.
    public init(
        id: String,
        deletedAt: Int64,
        history: [String],
        tag: String? = nil,
        scope: [Int]? = nil,
        relations: [String]? = nil
    ) {
        self.id = id
        self.deletedAt = deletedAt
        self.history = history
        self.tag = tag
        self.scope = scope
        self.relations = relations
    }
}

/// A conflict a merge lists (Spec/merge.md R-MRG-7).
public struct FixtureConflict: Codable, Equatable, Sendable {
    /// The item ID, 32 hex digits.
    public var id: String
    /// `bothChanged`, `changedAndDeleted`, `samePrimaryKey` or `unreadable`.
    public var kind: String

    /// Creates an expected conflict.
    public init(id: String, kind: String) {
        self.id = id
        self.kind = kind
    }
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
    /// Format 3: the entry's history, each event 16 hex digits, the current event first.
    public var history: [String]? = nil
    /// Merge: for each replica, what the merged state is to that replica's state of the ID (as
    /// ``FixtureDeletion/relations``).
    public var relations: [String]? = nil
    /// Merge: the ID of the item this one is a conflict copy of (Spec/merge.md R-MRG-8).
    public var conflictCopyOf: String? = nil
}

/// The one JSON style fixtures use: pretty, sorted keys, so files diff well.
enum JSONEncoderFactory {
    static func make() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
