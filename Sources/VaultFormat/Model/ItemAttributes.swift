// vault: the attributes of a keychain item.

/// The attributes of a keychain item, as Apple's keychain names them.
///
/// Strings default to empty and numbers to zero; defaults are not stored.
///
/// Spec: Spec/format-v1.md, "Attributes".
public struct ItemAttributes: Hashable, Sendable, Codable {
    /// `kSecAttrService`.
    public var service: String = ""
    /// `kSecAttrAccount`.
    public var account: String = ""
    /// `kSecAttrAccessGroup`.
    public var accessGroup: String = ""
    /// `kSecAttrLabel`.
    public var label: String = ""
    /// `kSecAttrComment`.
    public var comment: String = ""
    /// `kSecAttrDescription`.
    public var itemDescription: String = ""
    /// `kSecAttrCreator`, a four-character code.
    public var creator: UInt32 = 0
    /// `kSecAttrType`, a four-character code.
    public var type: UInt32 = 0
    /// `kSecAttrGeneric`: application data.
    public var generic: [UInt8] = []
    /// `kSecAttrCreationDate`, in milliseconds since the Unix epoch.
    public var creationDate: Int64 = 0
    /// `kSecAttrModificationDate`, in milliseconds since the Unix epoch.
    public var modificationDate: Int64 = 0
    /// `kSecAttrSynchronizable`.
    public var synchronizable: Bool = false
    /// `kSecAttrServer` (internet passwords).
    public var server: String = ""
    /// `kSecAttrProtocol` (internet passwords), for example `https`.
    public var `protocol`: String = ""
    /// `kSecAttrAuthenticationType` (internet passwords), for example `default`.
    public var authenticationType: String = ""
    /// `kSecAttrPort` (internet passwords).
    public var port: UInt16 = 0
    /// `kSecAttrPath` (internet passwords).
    public var path: String = ""
    /// `kSecAttrSecurityDomain` (internet passwords).
    public var securityDomain: String = ""
    /// `kSecAttrIsInvisible`.
    public var isInvisible: Bool = false
    /// `kSecAttrIsNegative`.
    public var isNegative: Bool = false
    /// Attributes from a newer minor version (tags 64 and above), kept as they are.
    public var preserved: [PreservedAttribute] = []

    /// Creates attributes; every field may be set afterwards.
    public init(service: String = "", account: String = "") {
        self.service = service
        self.account = account
    }

    /// Whether any internet-password field is set.
    public var hasInternetFields: Bool {
        !server.isEmpty || !`protocol`.isEmpty || !authenticationType.isEmpty || port != 0 || !path.isEmpty
            || !securityDomain.isEmpty
    }
}

/// An attribute this reader does not know, kept so that a rewrite preserves it.
public struct PreservedAttribute: Hashable, Sendable, Codable {
    /// The attribute tag, 64 or above.
    public var tag: UInt8
    /// The raw value.
    public var value: [UInt8]

    /// Creates a preserved attribute.
    public init(tag: UInt8, value: [UInt8]) {
        self.tag = tag
        self.value = value
    }
}
