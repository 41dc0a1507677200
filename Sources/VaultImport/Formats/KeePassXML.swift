// vault: KeePassXC's XML export (the KeePass 2.x XML document).

import FoundationEssentials

/// `keepassxc-cli export --format xml`: the KeePass 2.x XML document.
///
/// Spec: Spec/cli.md, "keepassxc-xml".
enum KeePassXML {
    static let standardKeys: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let document = try XMLTree.parse(bytes)
        guard document.name == "KeePassFile", let root = document.child("Root") else {
            throw ImportProblem("no KeePassFile/Root element", code: .missingField, field: "KeePassFile/Root")
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
            let display = EntryMapping.displayName(title, folder: folder)
            if inBin {
                batch.skip(display, .excluded("in the recycle bin"))
                continue
            }
            let times = entry.child("Times")
            var item = EntryMapping.entry(
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
            batch.entries.append(item)
        }
        for child in group.children("Group") {
            walk(child, path: folderPath, isTop: false, inBin: inBin, recycleBin: recycleBin, &batch)
        }
    }

    /// KeePass times: RFC 3339 text (KDBX 3.1), or base64 of a little-endian Int64 count of
    /// seconds since 0001-01-01T00:00:00Z (KDBX 4).
    static func time(_ text: String) -> Int64? {
        if let date = ExportDates.date(text) { return Int64(date.timeIntervalSince1970 * 1000) }
        guard let data = Data(base64Encoded: text), data.count == 8 else { return nil }
        let seconds = data.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return (seconds - 62_135_596_800) * 1000
    }
}
