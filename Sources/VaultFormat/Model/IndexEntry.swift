// vault: index entries and deletion records.

/// One item's entry in the encrypted index.
///
/// Spec: Spec/format-v1.md, "Index".
public struct IndexEntry: Hashable, Sendable {
    /// Encoded size.
    public static let byteCount = 39
    /// The lookup tag, as a big-endian number (so numeric order is byte order).
    public var tag: UInt64
    /// The item's identifier.
    public var itemID: ItemID
    /// Generic or internet password.
    public var itemClass: ItemClass
    /// The protection class.
    public var protectionClass: ProtectionClass
    /// The generation in which the record was last written.
    public var version: UInt64
    /// Exact bytes of the encoded attributes.
    public var attributesLength: Int
    /// Exact bytes of the secret.
    public var secretLength: Int
    /// The key domain that seals the record: 0 for the usual class keys, or the domain of an
    /// access group (format 2.0, R2-IDX-1). Always 0 in format 1.
    public var domain: UInt8 = 0

    /// Creates an entry.
    public init(
        tag: UInt64,
        itemID: ItemID,
        itemClass: ItemClass,
        protectionClass: ProtectionClass,
        version: UInt64,
        attributesLength: Int,
        secretLength: Int,
        domain: UInt8 = 0
    ) {
        self.domain = domain
        self.tag = tag
        self.itemID = itemID
        self.itemClass = itemClass
        self.protectionClass = protectionClass
        self.version = version
        self.attributesLength = attributesLength
        self.secretLength = secretLength
    }

    /// `itemClass << 4 | protectionClass`.
    public var classByte: UInt8 { itemClass.rawValue << 4 | protectionClass.rawValue }

    /// Padded secret length.
    public var paddedSecretLength: Int { Padding.paddedLength(secretLength) }
    /// Padded attributes length.
    public var paddedAttributesLength: Int { Padding.paddedLength(attributesLength) }

    /// The record's size in the records section (section 7).
    public var recordLength: Int {
        XChaCha20Poly1305.nonceByteCount + (protectionClass.isDeviceBound ? 16 : 0) + paddedSecretLength
            + paddedAttributesLength + 2 * XChaCha20Poly1305.tagByteCount
    }

    /// Whether `self` sorts before `other` in the index: by tag, then item ID.
    func sortsBefore(_ other: IndexEntry) -> Bool { (tag, itemID) < (other.tag, other.itemID) }
}

/// A deleted item's ID and deletion time, kept for merging (R-DEL-1).
public struct DeletionRecord: Hashable, Sendable {
    /// Encoded size.
    public static let byteCount = 24
    /// How long deletion records are kept: 90 days, in milliseconds.
    public static let retentionMilliseconds: Int64 = 90 * 24 * 3600 * 1000
    /// The deleted item.
    public var itemID: ItemID
    /// When it was deleted, milliseconds since the Unix epoch.
    public var deletedAt: Int64

    /// Creates a deletion record.
    public init(itemID: ItemID, deletedAt: Int64) {
        self.itemID = itemID
        self.deletedAt = deletedAt
    }
}
