// vaulttool: choosing items by their attributes, and showing them one per line.

import Foundation
import VaultIO

/// Attribute options that select items (`list`, `get`, `rm`, `export`) or name one (`set`).
///
/// Every option given must match exactly; options left out match anything.
/// Spec: Spec/cli.md, "Selecting items".
struct ItemSelector: Sendable {
    /// The options, declared once: ``specs`` and ``filterSpecs`` list them, `init(_:)` reads them.
    enum Key {
        static let service = Option("--service", valueName: "service", help: "The service (generic passwords).")
        static let account = Option("--account", valueName: "account", help: "The account.")
        static let accessGroup = Option("--access-group", valueName: "group", help: "The access group.")
        static let server = Option(
            "--server",
            valueName: "server",
            help: "The server (internet passwords; compared without case)."
        )
        static let `protocol` = Option("--protocol", valueName: "protocol", help: "The protocol, such as https.")
        static let port = Option("--port", valueName: "port", help: "The port (0: none).")
        static let path = Option("--path", valueName: "path", help: "The path on the server.")
        static let securityDomain = Option("--security-domain", valueName: "domain", help: "The security domain.")
        static let authenticationType = Option(
            "--authentication-type",
            valueName: "type",
            help: "The authentication type."
        )
        static let label = Option("--label", valueName: "label", help: "The label.")
        static let itemClass = Option(
            "--class",
            valueName: "class",
            help: "generic or internet.",
            completion: .values(["generic", "internet"])
        )
        static let id = Option("--id", valueName: "id", help: "The item ID (32 hex digits).")
    }

    static let specs = [
        Key.service, Key.account, Key.accessGroup, Key.server, Key.protocol, Key.port, Key.path, Key.securityDomain,
        Key.authenticationType,
    ].map(\.spec)
    /// Options only filters take.
    static let filterSpecs = [Key.label, Key.itemClass, Key.id].map(\.spec)

    var service, account, accessGroup, server, `protocol`, path, securityDomain, authenticationType: String?
    var port: UInt16?
    var label: String?
    var itemClass: ItemClass?
    var id: ItemID?

    /// Selects every item.
    static let all = ItemSelector()

    private init() {}

    init(_ parsed: ParsedArguments) throws {
        service = parsed[Key.service]
        account = parsed[Key.account]
        accessGroup = parsed[Key.accessGroup]
        server = parsed[Key.server]
        `protocol` = parsed[Key.protocol]
        path = parsed[Key.path]
        securityDomain = parsed[Key.securityDomain]
        authenticationType = parsed[Key.authenticationType]
        label = parsed[Key.label]
        if let text = parsed[Key.port] {
            guard let value = UInt16(text) else {
                throw UsageError("'--port' needs a number from 0 (no port) to 65535")
            }
            port = value
        }
        let given = server
        canonicalizeInternetFields()
        if let given, let server {
            if server.isEmpty { throw UsageError("'--server' names no host") }
            if given.contains("://") && server.contains(":") && !server.hasPrefix("[") {
                throw UsageError("the port in '--server' is not a number from 1 to 65535")
            }
        }
        if let text = parsed[Key.itemClass] { itemClass = try Self.parseClass(text) }
        if let text = parsed[Key.id] {
            guard let value = ItemID(hex: text) else { throw UsageError("'--id' needs 32 hexadecimal digits") }
            id = value
        }
    }

    static func parseClass(_ text: String) throws -> ItemClass {
        switch text {
        case "generic", "genericPassword": return .genericPassword
        case "internet", "internetPassword": return .internetPassword
        default: throw UsageError("'--class' is 'generic' or 'internet', not '\(text)'")
        }
    }

    /// Whether any internet-password option was given.
    var hasInternetFields: Bool {
        server != nil || `protocol` != nil || port != nil || path != nil || securityDomain != nil
            || authenticationType != nil
    }

    /// Whether nothing at all was given.
    var isEmpty: Bool {
        service == nil && account == nil && accessGroup == nil && !hasInternetFields && label == nil
            && itemClass == nil && id == nil
    }

    /// The item ID, when `--id` is the only option given.
    var onlyID: ItemID? {
        guard let id else { return nil }
        var rest = self
        rest.id = nil
        return rest.isEmpty ? id : nil
    }

    /// The internet-password fields given, in the spelling every writer stores (L-KC-15): a server
    /// given as a URL also gives the protocol, port and path not given otherwise.
    private mutating func canonicalizeInternetFields() {
        var given = ItemAttributes()
        given.server = server ?? ""
        given.protocol = `protocol` ?? ""
        given.authenticationType = authenticationType ?? ""
        given.port = port ?? 0
        given.path = path ?? ""
        let canonical = given.canonicalIdentity(for: .internetPassword)
        if let given = server {
            server = canonical.server
            if `protocol` == nil && !canonical.protocol.isEmpty { `protocol` = canonical.protocol }
            // A URL names its port and path, none included: `https://h/` is the item without a
            // port or path, as `set` stores it, not a pattern for every port and path of `h`.
            let isURL = given.contains("://") && !canonical.protocol.isEmpty
            if port == nil && (isURL || canonical.port != 0) { port = canonical.port }
            if path == nil && (isURL || !canonical.path.isEmpty) { path = canonical.path }
        }
        if `protocol` != nil { `protocol` = canonical.protocol }
        if authenticationType != nil { authenticationType = canonical.authenticationType }
        if let path { self.path = path == "/" ? "" : path }
    }

    /// Whether `item` matches every option given, compared in the canonical spelling (L-KC-15).
    func matches(_ item: DecodedItem) -> Bool {
        let a = item.attributes.canonicalIdentity(for: item.entry.itemClass)
        func ok(_ wanted: String?, _ actual: String) -> Bool { wanted == nil || wanted == actual }
        return ok(service, a.service) && ok(account, a.account) && ok(accessGroup, a.accessGroup)
            && ok(server, a.server) && ok(`protocol`, a.protocol) && ok(path, a.path)
            && ok(securityDomain, a.securityDomain) && ok(authenticationType, a.authenticationType)
            && ok(label, a.label) && (port == nil || port == a.port)
            && (itemClass == nil || itemClass == item.entry.itemClass) && (id == nil || id == item.entry.itemID)
    }

    /// The items of `snapshot` that match, skipping those the credentials cannot open.
    ///
    /// - Throws: ``ItemDamage`` naming the first damaged item, or the source's read error.
    func select(in snapshot: VaultSnapshot, includeSecrets: Bool = false) throws -> [DecodedItem] {
        try scan(in: snapshot, includeSecrets: includeSecrets, salvage: false).items
    }

    /// Exactly one matching item, or the error `get` and `rm` report.
    ///
    /// When the options name a whole primary key (a service or server and an account),
    /// the item is first looked up by its lookup tag in the access group given, or in
    /// the default (empty) one: one decryption instead of one per item. Only when that
    /// finds nothing are all items searched (Spec/cli.md, "Selecting items").
    func single(in snapshot: VaultSnapshot, includeSecret: Bool) throws -> DecodedItem {
        if isEmpty { throw UsageError("Name the item with '--service', '--account', '--server' or another attribute") }
        if let item = try exactMatch(in: snapshot, includeSecret: includeSecret) { return item }
        let scan = try scan(in: snapshot, includeSecrets: includeSecret, salvage: false)
        let found = try Self.unnamedGroupRule(
            scan.items,
            groupNamed: accessGroup != nil,
            ownDomain: snapshot.keys.limitedDomain
        )
        guard let first = found.first else { throw ToolError(Self.noMatch(scan, snapshot), exitCode: .notFound) }
        if found.count == 1 { return first }
        guard let item = Self.oneIdentity(found) else {
            throw ToolError(
                "\(found.count) items match; narrow the selection with more attributes (see 'vaulttool list')"
            )
        }
        return item
    }
}

extension ItemSelector {
    /// The item that answers when several items match and all are one identity written in several
    /// spellings (L-KC-15): the one in the canonical spelling, else the most recently modified;
    /// `nil` when the matches are different items.
    static func oneIdentity(_ items: [DecodedItem]) -> DecodedItem? {
        guard items.count > 1, let first = items.first else { return nil }
        let itemClass = first.entry.itemClass
        let key = PrimaryKey(itemClass: itemClass, attributes: first.attributes.canonicalIdentity(for: itemClass))
        guard
            items.allSatisfy({
                $0.entry.itemClass == itemClass
                    && $0.attributes.hasSameIdentity(as: first.attributes, itemClass: itemClass)
            })
        else { return nil }
        return items.dropFirst().reduce(first) { kept, item in
            kept.attributes.answers(for: key, before: item.attributes, itemClass: itemClass) ? kept : item
        }
    }

    /// Spec/cli.md, "Selecting items": a lookup that names no access group prefers the default
    /// group, and never takes an item of a group with its own key domain (format 2.0): a
    /// recipient limited to `deploy` can plant `bank/ci` in `deploy`, and it must not answer for
    /// billing's or the default group's `bank/ci`. Such an item is named in the error instead. For
    /// a recipient limited to one group (`ownDomain`), that group is its default: it reads no other.
    static func unnamedGroupRule(_ items: [DecodedItem], groupNamed: Bool, ownDomain: UInt8?) throws
        -> [DecodedItem]
    {
        guard !groupNamed else { return items }
        let inDefault = items.filter { $0.attributes.accessGroup.isEmpty || $0.entry.domain == ownDomain }
        if !inDefault.isEmpty { return inDefault }
        let unkeyed = items.filter { $0.entry.domain == 0 }
        if unkeyed.isEmpty, let keyed = items.first {
            let group = TerminalText.escaped(keyed.attributes.accessGroup)
            throw ToolError(
                "No item matches in the default access group; an item of access group '\(group)' matches, "
                    + "and a lookup that names no group never takes an item of a group with its own keys: "
                    + "add --access-group '\(group)'",
                exitCode: .notFound
            )
        }
        return unkeyed
    }

    /// The one item whose primary key the options name, found by lookup tag, or `nil`
    /// when the options do not name a primary key, nothing is found, or both a
    /// synchronizable and a non-synchronizable item match (the search then decides).
    func exactMatch(in snapshot: VaultSnapshot, includeSecret: Bool) throws -> DecodedItem? {
        guard let account, id == nil else { return nil }
        let itemClass = self.itemClass ?? (hasInternetFields ? .internetPassword : .genericPassword)
        var key = ItemAttributes(service: service ?? "", account: account)
        key.accessGroup = accessGroup ?? ""
        switch itemClass {
        case .genericPassword:
            guard service != nil, !hasInternetFields else { return nil }
        case .internetPassword:
            guard let server, service == nil else { return nil }
            key.server = server
            key.protocol = `protocol` ?? ""
            key.authenticationType = authenticationType ?? ItemAttributes.defaultAuthenticationType
            key.port = port ?? 0
            key.path = path ?? ""
            key.securityDomain = securityDomain ?? ""
        }
        var found: [(position: Int, item: DecodedItem)] = []
        for synchronizable in [false, true] {
            key.synchronizable = synchronizable
            let canonical = key.canonicalIdentity(for: itemClass)
            let primaryKey = PrimaryKey(itemClass: itemClass, attributes: canonical)
            // The canonical spelling answers first; an older one only when it is absent (L-KC-15).
            let foundBefore = found.count
            let tags = ([primaryKey] + canonical.olderSpellings(for: itemClass)).map(snapshot.keys.lookupTag)
            for (step, tag) in tags.enumerated() where step == 0 || found.count == foundBefore {
                for position in snapshot.index.positions(ofTag: tag) {
                    let item: DecodedItem
                    do {
                        item = try snapshot.item(at: position, includeSecret: false)
                    } catch let error as VaultFormatError
                        where error.code == .foreignDevice || error.code == .keyUnavailable
                    {
                        let entry = snapshot.index.entry(at: position)
                        if entry.protectionClass.isDeviceBound && snapshot.keys.deviceSecret == nil {
                            throw Self.needsDeviceSecret(entry)
                        }
                        return nil
                    }
                    guard item.attributes.hasSameIdentity(as: canonical, itemClass: itemClass) else { continue }
                    guard matches(item) else { return nil }
                    found.append((position, item))
                }
            }
        }
        guard found.count == 1, let (position, item) = found.first else { return nil }
        guard includeSecret else { return item }
        return try snapshot.item(at: position, includeSecret: true)
    }
}
