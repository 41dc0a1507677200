// vaulttool: reading other password stores' exports into keychain items.

import Foundation
import VaultIO

/// One entry of an export, mapped to a keychain item.
struct ImportedItem {
    /// How the summary names the entry, for example `GitHub (Internet)`.
    var name: String
    var itemClass: ItemClass
    /// The class the source asked for, if it can say (only the generic layouts can).
    var accessibility: ProtectionClass?
    var attributes: ItemAttributes
    var secret: [UInt8]
    /// The item ID the source asked for (only the generic layouts carry one).
    var id: ItemID?
    /// The group path (KeePassXC) or folder (Bitwarden) the entry was in; used to tell apart
    /// entries that would otherwise share a primary key.
    var folder = ""
}

/// What an importer read: items, entries it skipped and why, and notes about fields it dropped.
struct ImportBatch {
    var items: [ImportedItem] = []
    var skipped: [(name: String, reason: String)] = []
    var notes: [String] = []
}

/// The formats `import` and `migrate --from` read. Spec: Spec/cli.md, "Import mappings".
enum Importers {
    static let formats: [(name: String, read: @Sendable ([UInt8]) throws -> ImportBatch)] = [
        ("keepassxc-xml", KeePassXML.read),
        ("keepassxc-csv", KeePassCSV.read),
        ("bitwarden-json", BitwardenJSON.read),
        ("json", GenericJSON.read),
        ("csv", GenericCSV.read),
    ]

    static var names: [String] { formats.map(\.name) }

    /// Reads `bytes` as `format`.
    ///
    /// - Throws: ``UsageError`` for an unknown format; ``ToolError`` (damaged) when the file is
    ///   not in that format at all.
    static func read(_ bytes: [UInt8], format: String) throws -> ImportBatch {
        guard let reader = formats.first(where: { $0.name == format })?.read else {
            throw UsageError("Unknown format '\(format)'; use one of \(names.joined(separator: ", "))")
        }
        do {
            return try reader(bytes)
        } catch let problem as ImportProblem {
            throw ToolError("the file is not a valid \(format) export: \(problem.reason)", exitCode: .damaged)
        }
    }
}

/// The mapping shared by the password-manager formats (KeePassXC, Bitwarden).
enum EntryMapping {
    /// Maps a login entry.
    ///
    /// With a URL that has a host the item is an internet password (server, protocol,
    /// port and path from the URL); otherwise a generic password whose service is the
    /// title (or the URL text when there is no title).
    static func item(
        title: String,
        username: String,
        password: String,
        url: String,
        notes: String,
        folder: String,
        created: Int64?,
        modified: Int64?
    ) -> ImportedItem {
        var attributes = ItemAttributes(service: "", account: username)
        var itemClass = ItemClass.genericPassword
        if let parts = parse(url) {
            itemClass = .internetPassword
            attributes.server = parts.host
            attributes.protocol = parts.scheme
            attributes.port = parts.port
            attributes.path = parts.path
        } else {
            attributes.service = title.isEmpty ? url : title
        }
        attributes.label = title
        attributes.comment = notes
        attributes.itemDescription = folder
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        attributes.creationDate = created ?? modified ?? now
        attributes.modificationDate = modified ?? attributes.creationDate
        let name = folder.isEmpty ? title : "\(title) (\(folder))"
        return ImportedItem(
            name: name,
            itemClass: itemClass,
            attributes: attributes,
            secret: Array(password.utf8),
            folder: folder
        )
    }

    /// `https://host:port/path` → its parts; a bare `host.name/path` counts as a host without protocol.
    static func parse(_ text: String) -> (scheme: String, host: String, port: UInt16, path: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.contains(" ") else { return nil }
        if let components = URLComponents(string: trimmed), let scheme = components.scheme,
            let host = components.host, !host.isEmpty
        {
            return (scheme.lowercased(), host.lowercased(), UInt16(clamping: components.port ?? 0), components.path)
        }
        if !trimmed.contains("://"), trimmed.contains("."),
            let components = URLComponents(string: "x://" + trimmed), let host = components.host, !host.isEmpty
        {
            return ("", host.lowercased(), UInt16(clamping: components.port ?? 0), components.path)
        }
        return nil
    }

    /// Extra fields kept in the `generic` attribute as a JSON object with sorted keys.
    static func generic(_ fields: [String: String]) -> [UInt8] {
        guard !fields.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(fields)) ?? Data())
    }
}
