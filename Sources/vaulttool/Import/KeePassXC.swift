// vaulttool: KeePassXC's XML (KeePass 2.x XML) and CSV exports.

import Foundation
import FoundationXML
import VaultIO

/// `keepassxc-cli export --format xml`: the KeePass 2.x XML document.
enum KeePassXML {
    static let standardKeys: Swift.Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let document = try XMLTree.parse(bytes)
        guard document.name == "KeePassFile", let root = document.child("Root") else {
            throw ImportProblem("no KeePassFile/Root element")
        }
        let recycleBin = document.child("Meta")?.child("RecycleBinUUID")?.text ?? ""
        var batch = ImportBatch()
        for group in root.children("Group") {
            walk(group, path: [], isTop: true, inBin: false, recycleBin: recycleBin, &batch)
        }
        return batch
    }

    private static func walk(
        _ group: XMLTree,
        path: [String],
        isTop: Bool,
        inBin parentInBin: Bool,
        recycleBin: String,
        _ batch: inout ImportBatch
    ) {
        let name = group.child("Name")?.text ?? ""
        let inBin = parentInBin || (!recycleBin.isEmpty && group.child("UUID")?.text == recycleBin)
        // The top group is the database itself ("Passwords" or "Root"); folders start below it.
        let folderPath = isTop ? path : path + [name]
        for entry in group.children("Entry") {
            var strings = [String: (value: String, protected: Bool)]()
            for field in entry.children("String") {
                guard let key = field.child("Key")?.text else { continue }
                let value = field.child("Value")
                strings[key] = (value?.text ?? "", value?.attributes["ProtectInMemory"] == "True")
            }
            let title = strings["Title"]?.value ?? ""
            let folder = folderPath.joined(separator: "/")
            let display = folder.isEmpty ? title : "\(title) (\(folder))"
            if inBin {
                batch.skipped.append((display, "in the recycle bin"))
                continue
            }
            let times = entry.child("Times")
            var item = EntryMapping.item(
                title: title,
                username: strings["UserName"]?.value ?? "",
                password: strings["Password"]?.value ?? "",
                url: strings["URL"]?.value ?? "",
                notes: strings["Notes"]?.value ?? "",
                folder: folder,
                created: times?.child("CreationTime")?.text.flatMap(time),
                modified: times?.child("LastModificationTime")?.text.flatMap(time)
            )
            var extra = [String: String]()
            for (key, field) in strings where !standardKeys.contains(key) {
                if field.protected {
                    batch.notes.append("\(display): protected field '\(key)' not imported")
                } else {
                    extra[key] = field.value
                }
            }
            item.attributes.generic = EntryMapping.generic(extra)
            if !extra.isEmpty {
                batch.notes.append("\(display): \(extra.count) custom fields kept in the generic attribute")
            }
            if !entry.children("Binary").isEmpty {
                batch.notes.append("\(display): attachments not imported")
            }
            batch.items.append(item)
        }
        for child in group.children("Group") {
            walk(child, path: folderPath, isTop: false, inBin: inBin, recycleBin: recycleBin, &batch)
        }
    }

    /// KeePass times: RFC 3339 text (KDBX 3.1), or base64 of a little-endian Int64 count of
    /// seconds since 0001-01-01T00:00:00Z (KDBX 4).
    static func time(_ text: String) -> Int64? {
        if let date = ItemDates.date(text) { return Int64(date.timeIntervalSince1970 * 1000) }
        guard let data = Data(base64Encoded: text), data.count == 8 else { return nil }
        let seconds = data.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return (seconds - 62_135_596_800) * 1000
    }
}

/// `keepassxc-cli export --format csv`: Group, Title, Username, Password, URL, Notes, TOTP, Icon,
/// Last Modified, Created.
enum KeePassCSV {
    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let (header, rows) = try CSV.records(bytes)
        for needed in ["Group", "Title", "Username", "Password", "URL", "Notes"] where !header.contains(needed) {
            throw ImportProblem("no '\(needed)' column")
        }
        var batch = ImportBatch()
        for row in rows {
            // KeePassXC writes the full group path, starting with the database's root group.
            let path = (row["Group"] ?? "").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let folder = path.dropFirst().joined(separator: "/")
            let title = row["Title"] ?? ""
            let display = folder.isEmpty ? title : "\(title) (\(folder))"
            if path.count > 1 && path[1] == "Recycle Bin" {
                batch.skipped.append((display, "in the recycle bin"))
                continue
            }
            let item = EntryMapping.item(
                title: title,
                username: row["Username"] ?? "",
                password: row["Password"] ?? "",
                url: row["URL"] ?? "",
                notes: row["Notes"] ?? "",
                folder: folder,
                created: (row["Created"]).flatMap(KeePassXML.time),
                modified: (row["Last Modified"]).flatMap(KeePassXML.time)
            )
            if let totp = row["TOTP"], !totp.isEmpty { batch.notes.append("\(display): TOTP not imported") }
            batch.items.append(item)
        }
        return batch
    }
}

/// A small element tree built with Foundation's `XMLParser`.
final class XMLTree {
    let name: String
    let attributes: [String: String]
    private(set) var elements: [XMLTree] = []
    private var buffer = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The element's text (`nil` when empty).
    var text: String? { buffer.isEmpty ? nil : buffer }
    func child(_ name: String) -> XMLTree? { elements.first { $0.name == name } }
    func children(_ name: String) -> [XMLTree] { elements.filter { $0.name == name } }

    /// Parses a document and returns its root element.
    static func parse(_ bytes: [UInt8]) throws -> XMLTree {
        let builder = Builder()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ImportProblem(
                "not well-formed XML (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "empty"))"
            )
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTree] = []
        var root: XMLTree?

        func parser(
            _ parser: XMLParser,
            didStartElement name: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let element = XMLTree(name: name, attributes: attributes)
            stack.last?.elements.append(element)
            if stack.isEmpty { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.buffer += string
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            stack.last?.buffer += String(decoding: block, as: UTF8.self)
        }
    }
}
