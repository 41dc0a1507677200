// vault: the mapping shared by the password-manager formats.

import FoundationEssentials
import VaultIO

/// The mapping shared by the password-manager formats (KeePassXC, Bitwarden).
///
/// Spec: Spec/cli.md, "Login entries (KeePassXC, Bitwarden)".
enum EntryMapping {
    /// Maps a login entry.
    ///
    /// With a URL that has a host the item is an internet password (server, protocol,
    /// port and path from the URL); otherwise a generic password whose service is the
    /// title (or the URL text when there is no title).
    static func entry(
        title: String,
        username: String,
        password: String,
        url: String,
        notes: String,
        folder: String,
        created: Int64?,
        modified: Int64?
    ) -> ImportEntry {
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
        return ImportEntry(
            name: displayName(title, folder: folder),
            itemClass: itemClass,
            attributes: attributes,
            secret: Array(password.utf8),
            folder: folder
        )
    }

    /// How a report names an entry: its title, and its folder in parentheses.
    static func displayName(_ title: String, folder: String) -> String {
        folder.isEmpty ? title : "\(title) (\(folder))"
    }

    /// `https://host:port/path` → its parts; a bare `host.name/path` counts as a host without protocol.
    static func parse(_ text: String) -> (scheme: String, host: String, port: UInt16, path: String)? {
        // Spaces and tabs around it dropped (Unicode white space that is not a line break).
        let blank: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        let trimmed = String(text.drop(while: blank).reversed().drop(while: blank).reversed())
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
