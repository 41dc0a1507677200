// vaulttool: choosing items by their attributes, and showing them one per line.

import FoundationEssentials
import Glibc
import VaultIO

/// Attribute options that select items (`list`, `get`, `rm`, `export`) or name one (`set`).
///
/// Every option given must match exactly; options left out match anything.
/// Spec: Spec/cli.md, "Selecting items".
@dynamicMemberLookup
struct ItemSelector: OptionGroup, Sendable {
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

    /// The attributes given, in the canonical spelling (L-KC-15); VaultIO selects with them.
    var query: ItemQuery

    /// Reads a field of the query (`selector.service`).
    subscript<T>(dynamicMember keyPath: KeyPath<ItemQuery, T>) -> T { query[keyPath: keyPath] }

    /// Selects every item.
    static let all = ItemSelector(query: ItemQuery())

    private init(query: ItemQuery) { self.query = query }

    init(_ parsed: ParsedArguments) throws {
        var query = ItemQuery(
            service: parsed[Key.service],
            account: parsed[Key.account],
            accessGroup: parsed[Key.accessGroup],
            server: parsed[Key.server],
            protocol: parsed[Key.protocol],
            path: parsed[Key.path],
            securityDomain: parsed[Key.securityDomain],
            authenticationType: parsed[Key.authenticationType],
            label: parsed[Key.label]
        )
        if let text = parsed[Key.port] {
            guard let value = UInt16(text) else {
                throw UsageError("'--port' needs a number from 0 (no port) to 65535")
            }
            query.port = value
        }
        let given = query.server
        query = query.canonicalized()
        if let given, let server = query.server {
            if server.isEmpty { throw UsageError("'--server' names no host") }
            if given.contains("://") && server.contains(":") && !server.hasPrefix("[") {
                throw UsageError("the port in '--server' is not a number from 1 to 65535")
            }
        }
        if let text = parsed[Key.itemClass] { query.itemClass = try Self.parseClass(text) }
        if let text = parsed[Key.id] {
            guard let value = ItemID(hex: text) else { throw UsageError("'--id' needs 32 hexadecimal digits") }
            query.id = value
        }
        self.query = query
    }

    /// `--accessibility <class>`: a protection class by its name; `hint` follows the refusal.
    static func parseAccessibility(_ name: String, hint: String = "; see 'vaulttool set --help'") throws
        -> ProtectionClass
    {
        guard let value = ProtectionClass(name: name) else {
            throw UsageError("Unknown accessibility '\(name)'\(hint)")
        }
        return value
    }

    static func parseClass(_ text: String) throws -> ItemClass {
        switch text {
        case "generic", "genericPassword": return .genericPassword
        case "internet", "internetPassword": return .internetPassword
        default: throw UsageError("'--class' is 'generic' or 'internet', not '\(text)'")
        }
    }

    /// The items of `snapshot` that match, skipping those the credentials cannot open.
    ///
    /// - Throws: ``ItemDamage`` naming the first damaged item, or the source's read error.
    func select(in snapshot: VaultSnapshot, includeSecrets: Bool = false) throws -> [DecodedItem] {
        try scan(in: snapshot, includeSecrets: includeSecrets, salvage: false).items
    }

    /// Exactly one matching item, or the error `get` and `rm` report: VaultIO's lookup
    /// (Spec/cli.md, "Selecting items"), with the command-line fix added to its errors.
    func single(in snapshot: VaultSnapshot, includeSecret: Bool) throws -> DecodedItem {
        if query.isEmpty {
            throw UsageError("Name the item with '--service', '--account', '--server' or another attribute")
        }
        do {
            return try Progress.run("Reading items") {
                try snapshot.item(matching: query, includeSecret: includeSecret)
            }
        } catch let error as VaultIOError where error.code == .itemNotFound && error.accessGroup == nil {
            // Without the device secret the library's reason counts the ThisDeviceOnly items it
            // could not search (every one of them); how to give the secret is ours to name.
            guard try snapshot.lacksDeviceSecretForItems else { throw error }
            throw ToolError(error.reason + " " + Self.deviceSecretFix, exitCode: .notFound)
        }
    }

    /// How to give the device secret, after an error that needs it.
    static let deviceSecretFix =
        "(--device-secret-file or VAULTTOOL_DEVICE_SECRET_FILE; 'vaulttool device-secret init' creates one)"
}
