// vault: the Keychain-style API: a scoped, configured view of a Vault.

public import VaultFormat

/// A keychain in the manner of KeychainAccess and Valet: items of one service
/// (or one internet location) and access group in a ``Vault``, read and written
/// by key.
///
/// ```swift
/// let keychain = try Keychain.standard                       // no password, like a login keychain
/// try keychain.set("s3cr3t", forKey: "token")
/// let token: String? = try keychain.get("token")
/// keychain["refresh"] = nil                                  // deletes
/// let pinned = keychain.accessibility(.whenUnlockedThisDeviceOnly).label("Sync token")
/// ```
///
/// A `Keychain` is a value: the fluent methods (``accessibility(_:)``,
/// ``synchronizable(_:)``, ``label(_:)``, ``comment(_:)``,
/// ``attributeDescription(_:)``, ``creator(_:)``, ``type(_:)``, ``invisible(_:)``,
/// ``negative(_:)``, ``generic(_:)``, ``emptyValues(_:)``) return configured
/// copies. It holds the ``Vault`` it works on, is `Sendable`, and every call is
/// one read or one transaction of that vault, safe from any thread or process.
///
/// **Uniqueness** follows Apple's keychain: a generic password is identified by
/// (service, account, access group, synchronizable), an internet password by
/// (server, account, protocol, authentication type, port, path, security domain,
/// access group, synchronizable). The key is the account, after the optional
/// Lockbox-style ``keyPrefix``.
public struct Keychain: Sendable {
    /// When an item can be read: the seven accessibility levels.
    public typealias Accessibility = ProtectionClass

    /// The vault the items live in.
    public let vault: Vault
    /// What kind of item this keychain reads and writes, and where.
    public let itemClass: KeychainItemClass
    /// The access group; `nil` is the default group (stored as the empty string).
    public let accessGroup: String?
    /// Prepended to every key with a dot (`"com.example.token"`), as Lockbox does; `nil` for none.
    public let keyPrefix: String?
    /// The protection class of items this keychain writes. `.whenUnlocked` by default.
    public private(set) var accessibility: Accessibility = .whenUnlocked
    /// Whether items this keychain reads and writes are the synchronizable ones.
    public private(set) var isSynchronizable = false
    /// The label written with new or updated items, if any.
    public internal(set) var itemLabel: String?
    /// The comment written with new or updated items, if any.
    public internal(set) var itemComment: String?
    /// The description (`kSecAttrDescription`) written with new or updated items, if any.
    public internal(set) var itemDescription: String?
    /// The creator code written with new or updated items, if any.
    public internal(set) var itemCreator: FourCharacterCode?
    /// The type code written with new or updated items instead of the value's own, if any.
    public internal(set) var itemType: FourCharacterCode?
    /// Whether new or updated items are marked invisible; `nil` leaves the flag as stored.
    public internal(set) var itemIsInvisible: Bool?
    /// Whether new or updated items are marked negative; `nil` leaves the flag as stored.
    public internal(set) var itemIsNegative: Bool?
    /// The application data (`kSecAttrGeneric`) written with new or updated items, if any.
    public internal(set) var itemGeneric: [UInt8]?
    /// Whether ``set(_:forKey:)-372fz`` stores an empty string or empty data (L-KC-7).
    public internal(set) var emptyValuePolicy: EmptyValuePolicy = .refuse
    /// Where non-throwing setters report a write they could not make; `nil`: standard error.
    var setterFailureHandler: SetterFailureHandler?
    /// Where listings and removals report a damaged record they skip (L-KC-17); `nil`: standard error.
    var damagedItemHandler: DamagedItemHandler?

    /// A keychain of generic passwords.
    ///
    /// - Parameters:
    ///   - service: The service; by default the executable's name (``defaultService``).
    ///   - accessGroup: The access group, or `nil` for the default one.
    ///   - keyPrefix: A Lockbox-style prefix for every key.
    ///   - vault: The vault to use.
    public init(
        service: String = Keychain.defaultService,
        accessGroup: String? = nil,
        keyPrefix: String? = nil,
        vault: Vault
    ) {
        self.init(
            itemClass: .genericPassword(service: service),
            accessGroup: accessGroup,
            keyPrefix: keyPrefix,
            vault: vault
        )
    }

    /// A keychain of internet passwords for one location.
    ///
    /// ```swift
    /// let site = Keychain(server: "example.com", protocol: .https, vault: vault)
    /// try site.set(password, forKey: "alice")
    /// ```
    public init(
        server: String,
        protocol: InternetProtocol,
        authenticationType: AuthenticationType = .default,
        port: UInt16 = 0,
        path: String = "",
        securityDomain: String = "",
        accessGroup: String? = nil,
        vault: Vault
    ) {
        let location = InternetLocation(
            server: server,
            protocol: `protocol`,
            authenticationType: authenticationType,
            port: port,
            path: path,
            securityDomain: securityDomain
        )
        self.init(itemClass: .internetPassword(location), accessGroup: accessGroup, keyPrefix: nil, vault: vault)
    }

    /// A keychain of any item class.
    public init(itemClass: KeychainItemClass, accessGroup: String? = nil, keyPrefix: String? = nil, vault: Vault) {
        self.itemClass = itemClass
        self.accessGroup = accessGroup
        self.keyPrefix = keyPrefix
        self.vault = vault
    }

    /// The generic-password service, or the internet server.
    public var service: String {
        switch itemClass {
        case .genericPassword(let service): service
        case .internetPassword(let location): location.server
        }
    }

    /// The name of the running executable (the last component of `argv[0]`), or `"vault"`.
    public static var defaultService: String {
        let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? "vault" : name
    }

    // MARK: - Fluent configuration

    /// A copy with `value` at `property`: what every fluent setter returns.
    func with<Value>(_ property: WritableKeyPath<Keychain, Value>, _ value: Value) -> Keychain {
        var copy = self
        copy[keyPath: property] = value
        return copy
    }

    /// A copy that writes items with `accessibility`.
    public func accessibility(_ accessibility: Accessibility) -> Keychain {
        with(\.accessibility, accessibility)
    }

    /// A copy that reads and writes the synchronizable (or the non-synchronizable) items.
    ///
    /// Nothing synchronizes a vault by itself; the flag is stored, kept apart in
    /// uniqueness as in Apple's keychain, and honoured by tools that merge vaults.
    /// A synchronizable item cannot be `…ThisDeviceOnly` (``KeychainError/invalidParameter(_:)``).
    public func synchronizable(_ synchronizable: Bool) -> Keychain {
        with(\.isSynchronizable, synchronizable)
    }

    /// A copy that writes `label` with new or updated items.
    ///
    /// `nil` (the default) leaves an existing item's label as it is; the empty string removes it.
    public func label(_ label: String?) -> Keychain {
        with(\.itemLabel, label)
    }

    /// A copy that writes `comment` with new or updated items.
    ///
    /// `nil` (the default) leaves an existing item's comment as it is; the empty string removes it.
    public func comment(_ comment: String?) -> Keychain {
        with(\.itemComment, comment)
    }

    // MARK: - Scope

    /// The stored account for `key`.
    func account(for key: String) throws(KeychainError) -> String {
        guard !key.isEmpty else { throw .emptyKey }
        return keyPrefix.map { "\($0).\(key)" } ?? key
    }

    /// The key of a stored account, or `nil` when the account lacks this keychain's prefix.
    func key(forAccount account: String) -> String? {
        guard let keyPrefix else { return account }
        guard account.hasPrefix(keyPrefix + ".") else { return nil }
        return String(account.dropFirst(keyPrefix.count + 1))
    }

    /// The attributes that identify `key`'s item (its primary key fields).
    func identifyingAttributes(for key: String, synchronizable: Bool) throws(KeychainError) -> ItemAttributes {
        var attributes = ItemAttributes(service: "", account: try account(for: key))
        itemClass.apply(to: &attributes)
        attributes.accessGroup = accessGroup ?? ""
        attributes.synchronizable = synchronizable
        return attributes.canonicalIdentity(for: itemClass.itemClass)  // L-KC-15
    }

    /// Whether an item is in this keychain's scope (class, service or location, access group, prefix),
    /// synchronizable or not.
    func contains(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> Bool {
        self.itemClass.matches(itemClass, attributes) && attributes.accessGroup == (accessGroup ?? "")
            && key(forAccount: attributes.account) != nil
    }
}
