// vaulttool: one item in the generic JSON layout (export, import, list, get --json).

import FoundationEssentials
import Glibc
import VaultIO
import VaultImport

/// An item as the generic layout writes it. Spec: Spec/cli.md, "Generic JSON layout".
///
/// Every key is always written, in sorted order. The keys are VaultImport's
/// `GenericJSONLayout.ItemKey`, the ones it reads the layout back with (`ImportFormat.json`).
struct ItemRecord: Encodable {
    var id: String?
    var itemClass: ItemClass = .genericPassword
    var accessibility: ProtectionClass = .whenUnlocked
    var attributes = ItemAttributes()
    /// The generation the item was last written in (`list`, `get --json`, `inspect --items --json`).
    var version: UInt64?
    /// The secret: text when it is valid UTF-8, else base64 in ``secretBase64``.
    var secret: String?
    var secretBase64: String?
    var secretLength: Int?

    init(id: String? = nil, itemClass: ItemClass, accessibility: ProtectionClass, attributes: ItemAttributes) {
        self.id = id
        self.itemClass = itemClass
        self.accessibility = accessibility
        self.attributes = attributes
    }

    /// An item read from a vault; `secret` only when it is to be shown.
    init(_ item: DecodedItem, includeSecret: Bool) {
        self.init(
            id: item.entry.itemID.description,
            itemClass: item.entry.itemClass,
            accessibility: item.entry.protectionClass,
            attributes: item.attributes
        )
        version = item.entry.version
        secretLength = item.entry.secretLength
        if includeSecret, let bytes = item.secret?.copyBytes() { setSecret(bytes) }
    }

    mutating func setSecret(_ bytes: [UInt8]) {
        if let text = String(validatingUTF8CString: bytes) {
            secret = text
        } else {
            secretBase64 = Data(bytes).base64EncodedString()
        }
        secretLength = bytes.count
    }

    // MARK: - Encodable

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: GenericJSONLayout.ItemKey.self)
        let a = attributes
        try c.encode(id, forKey: .id)
        try c.encode(itemClass.description, forKey: .itemClass)
        try c.encode(accessibility.description, forKey: .accessibility)
        try c.encode(a.service, forKey: .service)
        try c.encode(a.account, forKey: .account)
        try c.encode(a.accessGroup, forKey: .accessGroup)
        try c.encode(a.label, forKey: .label)
        try c.encode(a.comment, forKey: .comment)
        try c.encode(a.itemDescription, forKey: .description)
        try c.encode(a.creator, forKey: .creator)
        try c.encode(a.type, forKey: .type)
        try c.encode(Data(a.generic).base64EncodedString(), forKey: .generic)
        try c.encode(ItemDates.format(a.creationDate), forKey: .created)
        try c.encode(ItemDates.format(a.modificationDate), forKey: .modified)
        try c.encode(a.synchronizable, forKey: .synchronizable)
        try c.encode(a.isInvisible, forKey: .invisible)
        try c.encode(a.isNegative, forKey: .negative)
        try c.encode(a.server, forKey: .server)
        try c.encode(a.protocol, forKey: .protocol)
        try c.encode(a.authenticationType, forKey: .authenticationType)
        try c.encode(a.port, forKey: .port)
        try c.encode(a.path, forKey: .path)
        try c.encode(a.securityDomain, forKey: .securityDomain)
        let preserved = a.preserved.map {
            GenericJSONLayout.Preserved(tag: $0.tag, value: Data($0.value).base64EncodedString())
        }
        try c.encode(preserved, forKey: .preserved)
        if let version { try c.encode(version, forKey: .version) }
        if let secretLength { try c.encode(secretLength, forKey: .secretLength) }
        if let secret { try c.encode(secret, forKey: .secret) }
        if let secretBase64 { try c.encode(secretBase64, forKey: .secretBase64) }
    }
}

extension String {
    /// Text for bytes that are valid UTF-8 without NUL, else `nil`.
    fileprivate init?(validatingUTF8CString bytes: [UInt8]) {
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self = text
    }
}

/// Item dates: milliseconds since the Unix epoch in the vault, RFC 3339 text in JSON, 0 as `null`.
enum ItemDates {
    static func format(_ milliseconds: Int64) -> String? {
        guard milliseconds != 0 else { return nil }
        return RFC3339.format(milliseconds, fractionalSeconds: true)
    }
}
