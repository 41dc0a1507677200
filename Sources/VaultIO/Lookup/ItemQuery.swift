// vault: selecting items by their attributes, the one rule `vaulttool get`, references and apps share.

/// Attributes that select items: every field set must match exactly, fields left `nil` match
/// anything. Fields are compared in the canonical spelling of L-KC-15, so a server given as
/// `https://GitHub.com` selects what `Keychain(server:)`, `vaulttool set --server` and the git
/// helper store for that host.
///
/// ```swift
/// let query = ItemQuery(service: "db", account: "app")
/// let item = try snapshot.item(matching: query, includeSecret: true)
/// ```
///
/// Spec: Spec/cli.md, "Selecting items"; Spec/library-semantics.md, L-KC-15.
public struct ItemQuery: Sendable, Hashable {
    /// The service (generic passwords).
    public var service: String?
    /// The account.
    public var account: String?
    /// The access group; `nil` selects the default group first (see ``VaultSnapshot/item(matching:includeSecret:)``).
    public var accessGroup: String?
    /// The server (internet passwords): a host, or a URL that also gives the protocol, port and path.
    public var server: String?
    /// The protocol, such as `https` (compared without case).
    public var `protocol`: String?
    /// The port; 0 is "no port".
    public var port: UInt16?
    /// The path on the server; `/` is the empty path.
    public var path: String?
    /// The security domain (internet passwords).
    public var securityDomain: String?
    /// The authentication type; an empty one is `default`.
    public var authenticationType: String?
    /// The label.
    public var label: String?
    /// The item class.
    public var itemClass: ItemClass?
    /// The item ID.
    public var id: ItemID?

    /// A query; fields left out match anything.
    public init(
        service: String? = nil,
        account: String? = nil,
        accessGroup: String? = nil,
        server: String? = nil,
        protocol: String? = nil,
        port: UInt16? = nil,
        path: String? = nil,
        securityDomain: String? = nil,
        authenticationType: String? = nil,
        label: String? = nil,
        itemClass: ItemClass? = nil,
        id: ItemID? = nil
    ) {
        (self.service, self.account, self.accessGroup) = (service, account, accessGroup)
        (self.server, self.protocol, self.port, self.path) = (server, `protocol`, port, path)
        (self.securityDomain, self.authenticationType) = (securityDomain, authenticationType)
        (self.label, self.itemClass, self.id) = (label, itemClass, id)
    }

    /// Whether any internet-password field is set.
    public var hasInternetFields: Bool {
        server != nil || `protocol` != nil || port != nil || path != nil || securityDomain != nil
            || authenticationType != nil
    }

    /// Whether no field is set (the query selects every item).
    public var isEmpty: Bool {
        service == nil && account == nil && accessGroup == nil && !hasInternetFields && label == nil
            && itemClass == nil && id == nil
    }

    /// The query with its internet-password fields in the spelling every writer stores (L-KC-15):
    /// a server given as a URL also gives the protocol, port and path not set otherwise, and a
    /// URL names its port and path, none included (`https://h/` is the item without a port or
    /// path, as `set` stores it, not a pattern for every port and path of `h`). Idempotent; the
    /// lookups below apply it themselves.
    public func canonicalized() -> ItemQuery {
        var query = self
        var given = ItemAttributes()
        given.server = server ?? ""
        given.protocol = `protocol` ?? ""
        given.authenticationType = authenticationType ?? ""
        given.port = port ?? 0
        given.path = path ?? ""
        let canonical = given.canonicalIdentity(for: .internetPassword)
        if let server {
            query.server = canonical.server
            if `protocol` == nil && !canonical.protocol.isEmpty { query.protocol = canonical.protocol }
            let isURL = CharacterSearch.contains("://", in: server) && !canonical.protocol.isEmpty
            // Port 0 is "no port" (L-KC-15): a server's own port fills it, as it fills a missing one.
            if (port == nil || port == 0) && (isURL || canonical.port != 0) { query.port = canonical.port }
            if path == nil && (isURL || !canonical.path.isEmpty) { query.path = canonical.path }
        }
        if `protocol` != nil { query.protocol = canonical.protocol }
        if authenticationType != nil { query.authenticationType = canonical.authenticationType }
        if let path = query.path, path == "/" { query.path = "" }
        return query
    }

    /// Whether `item` matches every field set, compared in the canonical spelling. The query
    /// itself must be canonical (``canonicalized()``).
    public func matches(_ item: DecodedItem) -> Bool {
        let a = item.attributes.canonicalIdentity(for: item.entry.itemClass)
        func ok(_ wanted: String?, _ actual: String) -> Bool { wanted == nil || wanted == actual }
        return ok(service, a.service) && ok(account, a.account) && ok(accessGroup, a.accessGroup)
            && ok(server, a.server) && ok(`protocol`, a.protocol) && ok(path, a.path)
            && ok(securityDomain, a.securityDomain) && ok(authenticationType, a.authenticationType)
            && ok(label, a.label) && (port == nil || port == a.port)
            && (itemClass == nil || itemClass == item.entry.itemClass) && (id == nil || id == item.entry.itemID)
    }

    /// Whether a damaged item could be one the query selects: its readable attributes match, or
    /// none are readable.
    public func mayMatch(_ damage: ItemDamage) -> Bool {
        if let id, id != damage.entry.itemID { return false }
        if let itemClass, itemClass != damage.entry.itemClass { return false }
        guard let attributes = damage.attributes else { return true }
        return matches(DecodedItem(entry: damage.entry, attributes: attributes, secret: nil))
    }

    /// The identifying attributes of the item this query names: each field set, empty (port 0)
    /// for the others; the label, class and ID are not part of an item's identity. What
    /// ``VaultTransaction/upsert(_:identity:secret:protectionClass:newItemID:skipIfSecretUnchanged:existing:describe:)``
    /// takes to store the item a lookup with this query finds (`vaulttool set`).
    ///
    /// ```swift
    /// try txn.upsert(.genericPassword, identity: ItemQuery(service: "db", account: "app").identity, secret: secret)
    /// ```
    public var identity: ItemAttributes {
        var attributes = ItemAttributes(service: service ?? "", account: account ?? "")
        attributes.accessGroup = accessGroup ?? ""
        attributes.server = server ?? ""
        attributes.protocol = `protocol` ?? ""
        attributes.port = port ?? 0
        attributes.path = path ?? ""
        attributes.securityDomain = securityDomain ?? ""
        attributes.authenticationType = authenticationType ?? ""
        return attributes
    }

    /// The item ID, when ``id`` is the only field set.
    public var onlyID: ItemID? {
        guard let id else { return nil }
        var rest = self
        rest.id = nil
        return rest.isEmpty ? id : nil
    }
}
