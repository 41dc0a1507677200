// vault: one item in the generic JSON layout, as export and the listings write it.

import FoundationEssentials
import VaultIO

extension GenericJSONLayout {
    /// The top level of the layout, as `vaulttool export` writes it.
    public struct Document: Encodable {
        /// Always `vault-items`.
        public var format = "vault-items"
        /// Always 1.
        public var version = 1
        /// The items, sorted by ID.
        public var items: [Item]

        /// A document of `items`.
        public init(items: [Item]) { self.items = items }
    }

    /// An item as the generic layout writes it: `vaulttool export`, and the items of `list`,
    /// `get --json` and `inspect --items --json`.
    ///
    /// Every key is always written (JSONEncoder with `.sortedKeys` puts them in order). The keys
    /// are ``ItemKey``, the ones ``ImportFormat/json`` reads the layout back with.
    ///
    /// Spec: Spec/cli.md, "The generic JSON layout".
    public struct Item: Encodable {
        /// The item's ID.
        public var id: String?
        /// The item's class.
        public var itemClass: ItemClass = .genericPassword
        /// The item's protection class.
        public var accessibility: ProtectionClass = .whenUnlocked
        /// The item's attributes.
        public var attributes = ItemAttributes()
        /// The generation the item was last written in (`list`, `get --json`, `inspect --items --json`).
        public var version: UInt64?
        /// The secret: text when it is valid UTF-8 without NUL, else base64 in ``secretBase64``.
        public var secret: String?
        /// The secret in base64, when it is not text.
        public var secretBase64: String?
        /// The secret's length in bytes.
        public var secretLength: Int?

        /// An item made of its parts, without a secret.
        public init(id: String? = nil, itemClass: ItemClass, accessibility: ProtectionClass, attributes: ItemAttributes)
        {
            self.id = id
            self.itemClass = itemClass
            self.accessibility = accessibility
            self.attributes = attributes
        }

        /// An item read from a vault; `secret` only when it is to be shown.
        public init(_ item: DecodedItem, includeSecret: Bool) {
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

        /// Sets ``secret`` (or ``secretBase64``) and ``secretLength`` from the secret's bytes.
        public mutating func setSecret(_ bytes: [UInt8]) {
            if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) {
                secret = text
            } else {
                secretBase64 = Data(bytes).base64EncodedString()
            }
            secretLength = bytes.count
        }

        // MARK: - Encodable

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: ItemKey.self)
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
            try c.encode(RFC3339.itemDate(a.creationDate), forKey: .created)
            try c.encode(RFC3339.itemDate(a.modificationDate), forKey: .modified)
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
                Preserved(tag: $0.tag, value: Data($0.value).base64EncodedString())
            }
            try c.encode(preserved, forKey: .preserved)
            if let version { try c.encode(version, forKey: .version) }
            if let secretLength { try c.encode(secretLength, forKey: .secretLength) }
            if let secret { try c.encode(secret, forKey: .secret) }
            if let secretBase64 { try c.encode(secretBase64, forKey: .secretBase64) }
        }
    }
}
