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
    /// `kSecAttrLabel`.
    public var label: String { attributes.label }
    /// `kSecAttrComment`.
    public var comment: String { attributes.comment }
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

    /// The key, class and accessibility; never the value.
    public var description: String {
        "KeychainItem(key: \"\(key)\", \(itemClass), \(accessibility)\(synchronizable ? ", synchronizable" : ""))"
    }
}

extension Date {
    /// A date from milliseconds since the Unix epoch, the vault's time unit.
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
