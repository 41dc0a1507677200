// vault: an item's attributes as the Keychain API reports them.

public import FoundationEssentials
public import VaultFormat

/// The attributes of one keychain item, without its value unless asked for.
///
/// Listing items decrypts attributes only, never secrets (CRDKeychain's
/// `includeData` choice): ``value`` is set only by
/// ``Keychain/allItems(includingValues:)`` with `includingValues: true`.
public struct KeychainItem: Sendable, CustomStringConvertible {
    /// The key (the account without the keychain's prefix).
    public let key: String
    /// Generic or internet password.
    public let itemClass: ItemClass
    /// All stored attributes.
    public let attributes: ItemAttributes
    /// The protection class.
    public let accessibility: ProtectionClass
    /// The item's stable identifier: its persistent reference. It survives updates of the value
    /// and of the accessibility, and changes only when the item is removed and added again, or
    /// once when it first becomes `…ThisDeviceOnly` in a format 1.1 vault (its device-tagged
    /// ID, Spec/format-v1.1.md R11-DEV-1).
    public let persistentReference: ItemID
    /// The generation in which the item was last written.
    public let version: UInt64
    /// The value, when it was asked for.
    public let value: Data?

    init(key: String, entry: IndexEntry, attributes: ItemAttributes, value: Data?) {
        self.key = key
        itemClass = entry.itemClass
        self.attributes = attributes
        accessibility = entry.protectionClass
        persistentReference = entry.itemID
        version = entry.version
        self.value = value
    }

    /// `kSecAttrService` (generic passwords).
    public var service: String { attributes.service }
    /// `kSecAttrAccessGroup`; empty for the default group.
    public var accessGroup: String { attributes.accessGroup }
    /// `kSecAttrLabel`; `nil` when unset (the format stores no empty strings).
    public var label: String? { attributes.label.isEmpty ? nil : attributes.label }
    /// `kSecAttrComment`; `nil` when unset.
    public var comment: String? { attributes.comment.isEmpty ? nil : attributes.comment }
    /// `kSecAttrDescription` (KeychainAccess's `attributeDescription`); `nil` when unset.
    public var attributeDescription: String? { attributes.itemDescription.isEmpty ? nil : attributes.itemDescription }
    /// `kSecAttrCreator`; `nil` when unset.
    public var creator: FourCharacterCode? {
        attributes.creator == 0 ? nil : FourCharacterCode(rawValue: attributes.creator)
    }
    /// `kSecAttrType`; `nil` when unset. Values written by ``Keychain/set(_:forKey:)-372fz`` carry their
    /// type's code (`strg`, `int8`, `json`…) unless ``Keychain/type(_:)`` set another.
    public var type: FourCharacterCode? { attributes.type == 0 ? nil : FourCharacterCode(rawValue: attributes.type) }
    /// `kSecAttrIsInvisible`. A plain `Bool`: the format stores the flag only when set, so unset and
    /// `false` are the same.
    public var isInvisible: Bool { attributes.isInvisible }
    /// `kSecAttrIsNegative`; unset and `false` are the same.
    public var isNegative: Bool { attributes.isNegative }
    /// `kSecAttrGeneric`, the application data; `nil` when unset.
    public var generic: Data? { attributes.generic.isEmpty ? nil : Data(attributes.generic) }
    /// `kSecAttrSynchronizable`.
    public var synchronizable: Bool { attributes.synchronizable }
    /// `kSecAttrCreationDate`.
    public var creationDate: Date { Date(milliseconds: attributes.creationDate) }
    /// `kSecAttrModificationDate`.
    public var modificationDate: Date { Date(milliseconds: attributes.modificationDate) }
    /// The internet location, for internet passwords.
    public var internetLocation: InternetLocation? {
        guard itemClass == .internetPassword else { return nil }
        return InternetLocation(
            server: attributes.server,
            protocol: InternetProtocol(rawValue: attributes.protocol),
            authenticationType: AuthenticationType(rawValue: attributes.authenticationType),
            port: attributes.port,
            path: attributes.path,
            securityDomain: attributes.securityDomain
        )
    }

    /// Creation date, then key, then non-synchronizable first, then persistent reference (L-KC-11).
    static func creationOrder(_ a: KeychainItem, _ b: KeychainItem) -> Bool {
        if a.attributes.creationDate != b.attributes.creationDate {
            return a.attributes.creationDate < b.attributes.creationDate
        }
        if a.key != b.key { return a.key < b.key }
        if a.synchronizable != b.synchronizable { return !a.synchronizable }
        return a.persistentReference < b.persistentReference
    }

    /// The key, class and accessibility; never the value.
    public var description: String {
        "KeychainItem(key: \"\(key)\", \(itemClass), \(accessibility)\(synchronizable ? ", synchronizable" : ""))"
    }
}

extension Date {
    /// A date from milliseconds since the Unix epoch, the vault's time unit.
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
