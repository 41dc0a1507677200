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
    // The options, in help order; validate() reads them into `query`. `set` declares the first
    // nine only: it names one item by its identity (``ItemQuery/identity``), and its own `--label`
    // and `--class`, read here too, are no part of an identity.
    @Option("--service", valueName: "service", help: "The service (generic passwords).") private var service: String?
    @Option("--account", valueName: "account", help: "The account.") private var account: String?
    @Option("--access-group", valueName: "group", help: "The access group.") private var accessGroup: String?
    @Option("--server", valueName: "server", help: "The server (internet passwords; compared without case).")
    private var server: String?
    @Option("--protocol", valueName: "protocol", help: "The protocol, such as https.") private var scheme: String?
    @Option("--port", valueName: "port", help: "The port (0: none).") private var port: String?
    @Option("--path", valueName: "path", help: "The path on the server.") private var path: String?
    @Option("--security-domain", valueName: "domain", help: "The security domain.") private var securityDomain: String?
    @Option("--authentication-type", valueName: "type", help: "The authentication type.")
    private var authenticationType: String?
    @Option("--label", valueName: "label", help: "The label.") private var label: String?
    @Option("--class", valueName: "class", help: "generic or internet.", completion: .values(["generic", "internet"]))
    private var itemClass: String?
    @Option("--id", valueName: "id", help: "The item ID (32 hex digits).") private var id: String?

    /// The attributes given, in the canonical spelling (L-KC-15); VaultIO selects with them.
    private(set) var query = ItemQuery()

    /// Reads a field of the query (`selector.service`).
    subscript<T>(dynamicMember keyPath: KeyPath<ItemQuery, T>) -> T { query[keyPath: keyPath] }

    /// Selects every item.
    static let all = ItemSelector()

    mutating func validate() throws {
        query = ItemQuery(
            service: service,
            account: account,
            accessGroup: accessGroup,
            server: server,
            protocol: scheme,
            path: path,
            securityDomain: securityDomain,
            authenticationType: authenticationType,
            label: label
        )
        if let port {
            guard let value = UInt16(port) else {
                throw UsageError("'--port' needs a number from 0 (no port) to 65535")
            }
            query.port = value
        }
        query = query.canonicalized()
        if let server, let canonical = query.server {
            if canonical.isEmpty { throw UsageError("'--server' names no host") }
            if server.contains("://") && canonical.contains(":") && !canonical.hasPrefix("[") {
                throw UsageError("the port in '--server' is not a number from 1 to 65535")
            }
        }
        if let itemClass { query.itemClass = try Self.parseClass(itemClass) }
        if let id {
            guard let value = ItemID(hex: id) else { throw UsageError("'--id' needs 32 hexadecimal digits") }
            query.id = value
        }
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
