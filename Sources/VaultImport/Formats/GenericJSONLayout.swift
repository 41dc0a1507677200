// vault: the keys of the generic JSON layout, for its reader and its writer.

/// The generic JSON layout that `vaulttool export` writes and ``ImportFormat/json`` reads: the
/// keys of one item object, declared once for the writer and the reader.
///
/// Spec: Spec/cli.md, "The generic JSON layout".
public enum GenericJSONLayout {
    /// The keys of one item object. A reader ignores `version` and `secretLength`, which
    /// listings add.
    public enum ItemKey: String, CodingKey, CaseIterable, Sendable {
        case id, version, secret, secretBase64, secretLength, accessibility, preserved
        case itemClass = "class"
        case service, account, accessGroup, label, comment, description, creator, type, generic
        case created, modified, synchronizable, invisible, negative
        case server, `protocol`, authenticationType, port, path, securityDomain
    }

    /// One preserved attribute (a tag this version does not know, kept as read): its tag, and
    /// its value in base64.
    public struct Preserved: Codable, Hashable, Sendable {
        /// The attribute's tag.
        public var tag: UInt8
        /// The attribute's value, in base64.
        public var value: String

        /// Creates a preserved attribute.
        public init(tag: UInt8, value: String) {
            self.tag = tag
            self.value = value
        }
    }
}
