// vault: the plain, authenticated header.

/// The header of a vault file: what can be known without a key.
///
/// Spec: Spec/format-v1.md, "Header" and "Fields".
public struct VaultHeader: Sendable {
    /// The major version this library reads and writes.
    public static let currentMajor: UInt16 = 1
    /// The highest minor version this library reads and writes (format 1.2, recipients).
    ///
    /// Spec: Spec/format-v1.2.md. A file keeps its minor version when rewritten (R-HDR-7) until migrated.
    public static let currentMinor: UInt16 = 2
    /// The minor version of a new vault (format 1.1): a vault becomes 1.2 only by an explicit
    /// migration, so that 1.1 implementations keep writing new vaults (R12-VER-1).
    public static let newVaultMinor: UInt16 = 1
    /// Format 2.0 (access-group keys): a file becomes 2.0 only by an explicit migration.
    ///
    /// Spec: Spec/format-v2.md.
    package static let version2Major: UInt16 = 2
    /// Format 3 (commit slots, scope trees, event histories): the format of new vaults.
    ///
    /// Spec: Spec/format-v3.md.
    package static let version3Major: UInt16 = 3
    /// `\x89VLT\r\n\x1A\n`.
    public static let magic: [UInt8] = [0x89, 0x56, 0x4C, 0x54, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Bytes before the fields: magic, major, minor, header length.
    public static let preambleByteCount = 16
    /// Checksum plus MAC.
    public static let trailerByteCount = 64
    /// The largest header a reader accepts.
    public static let maximumByteCount = 1_048_576
    /// The most items a vault may hold.
    public static let maximumRecordCount = 1_000_000
    /// The most deletion records a vault may hold.
    public static let maximumDeletionCount = 1_000_000

    /// A header field as type and raw value: in ``unknownFields``, one this library does not
    /// know, kept for rewriting (R-FLD-3); a key holder's rewrite of the header holds every field
    /// so.
    public struct UnknownField: Hashable, Sendable {
        /// The field type. In ``unknownFields`` its critical bit is clear (R-FLD-2 refuses a
        /// critical field it does not know).
        public var type: UInt16
        /// The raw value.
        public var value: [UInt8]

        /// Creates a field.
        public init(type: UInt16, value: [UInt8]) {
            self.type = type
            self.value = value
        }
    }

    /// Format major version.
    public var major: UInt16 = currentMajor
    /// Format minor version.
    public var minor: UInt16 = newVaultMinor
    /// The vault's random identifier.
    public var vaultID: [UInt8]
    /// Creation time, milliseconds since the Unix epoch.
    public var created: Int64
    /// Rises by one with every write.
    public var generation: UInt64
    /// The keyslots, in file order.
    public var keyslots: [Keyslot]
    /// The nonce of the index ciphertext.
    public var indexNonce: [UInt8]
    /// Number of items.
    public var recordCount: Int
    /// Number of deletion records.
    public var deletionCount: Int
    /// Bytes of the records section.
    public var recordsLength: Int
    /// Non-critical fields from a newer writer.
    public var unknownFields: [UnknownField] = []
    /// The recipient stanzas (format 1.2, field `0x0001`), in file order.
    package var recipientStanzas: [RecipientStanza] = []
    /// The access groups with their own key domain (format 2.0, field `0x8006`), in file order.
    package var accessGroups: [AccessGroupEntry] = []
    /// Format 3: the commit slot this header was read from (its generation is ``generation``).
    package var commit: CommitSlot?

    /// How many recipients the header names (format 1.2). Their keys and names are encrypted.
    public var recipientCount: Int { recipientStanzas.count }

    /// How many of the recipients are limited to one access group (format 2.0).
    public var limitedRecipientCount: Int { recipientStanzas.filter(\.isLimited).count }

    /// How many access groups have a key domain of their own (format 2.0). Their names are encrypted.
    public var accessGroupCount: Int { accessGroups.count }

    /// Creates a header value.
    public init(
        vaultID: [UInt8],
        created: Int64,
        generation: UInt64,
        keyslots: [Keyslot],
        indexNonce: [UInt8] = [],
        recordCount: Int = 0,
        deletionCount: Int = 0,
        recordsLength: Int = 0
    ) {
        self.vaultID = vaultID
        self.created = created
        self.generation = generation
        self.keyslots = keyslots
        self.indexNonce = indexNonce
        self.recordCount = recordCount
        self.deletionCount = deletionCount
        self.recordsLength = recordsLength
    }

    /// Bytes of one index entry: 39 in format 1, 40 in format 2.0 (the key domain, R2-IDX-1).
    public var indexEntryByteCount: Int {
        major >= Self.version2Major ? IndexEntry.byteCount + 1 : IndexEntry.byteCount
    }

    /// Bytes of the index ciphertext: `39 × records + 24 × deletions + 16` (40 per entry in 2.0).
    public var indexLength: Int {
        indexEntryByteCount * recordCount + DeletionRecord.byteCount * deletionCount
            + XChaCha20Poly1305.tagByteCount
    }

    /// The length of this header once encoded, checksum and MAC included.
    public var encodedByteCount: Int {
        let fields =
            [16, 8, 8, 40] + keyslots.map(\.encoded.count)
            + recipientStanzas.map(\.encoded.count) + accessGroups.map { _ in AccessGroupEntry.byteCount }
            + unknownFields.map(\.value.count)
        return Self.preambleByteCount + fields.reduce(0) { $0 + 6 + $1 } + Self.trailerByteCount
    }

    /// Whether the file follows the rules of format 1.1: NFC passwords (R11-PW-1) and
    /// device-tagged item IDs for device-bound items (R11-DEV-1).
    public var followsVersion11Rules: Bool { (major == 1 && minor >= 1) || major >= Self.version2Major }

    /// Whether the file may hold recipient stanzas (format 1.2, R12-VER-1).
    public var followsVersion12Rules: Bool { (major == 1 && minor >= 2) || major >= Self.version2Major }

    /// Whether the file is format 2.0 (access-group keys; Spec/format-v2.md).
    public var isVersion2: Bool { major == Self.version2Major }

    /// Whether the file is format 3 (Spec/format-v3.md).
    public var isVersion3: Bool { major == Self.version3Major }

    /// Whether the file may hold access-group fields and limited stanzas (format 2.0 and later).
    public var hasAccessGroups: Bool { major >= Self.version2Major }

    /// Format 3: where the commit read ends; bytes after it belong to no commit (R3-SLT-6).
    /// `nil` in earlier formats.
    public var committedLength: Int? { commit.map { Int($0.committedLength) } }

    /// Format 3: the bytes a reader reads before any key: both commit slots and the header chunk.
    /// `nil` in earlier formats.
    public var headByteCount: Int? { commit.map { Int(CommitSlot.heapStart) + Int($0.header.length) } }

    /// Whether this library may rewrite the file (R-HDR-3, R2-VER-1, R3-SLT-2).
    public var isWritable: Bool {
        (major == Self.currentMajor && minor <= Self.currentMinor) || (isVersion2 && minor == 0)
            || (isVersion3 && minor <= CommitSlot.minor)
    }

    /// The weakest password keyslot's Argon2 parameters, if any slot is weak.
    public var weakKeyslots: [Int] {
        keyslots.indices.filter { keyslots[$0].kdf?.isWeak ?? false }
    }
}
