// vault: KeePassXC's CSV export.

/// `keepassxc-cli export --format csv`: Group, Title, Username, Password, URL, Notes, TOTP, Icon,
/// Last Modified, Created.
///
/// Spec: Spec/cli.md, "keepassxc-csv".
enum KeePassCSV {
    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let (header, rows) = try CSV.records(bytes)
        for needed in ["Group", "Title", "Username", "Password", "URL", "Notes"] where !header.contains(needed) {
            throw ImportProblem("no '\(needed)' column", code: .missingField, field: needed)
        }
        var batch = ImportBatch()
        for row in rows {
            // KeePassXC writes the full group path, starting with the database's root group.
            let path = (row["Group"] ?? "").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let folder = path.dropFirst().joined(separator: "/")
            let title = row["Title"] ?? ""
            let display = EntryMapping.displayName(title, folder: folder)
            if path.count > 1 && path[1] == "Recycle Bin" {
                batch.skip(display, .excluded("in the recycle bin"))
                continue
            }
            let item = EntryMapping.entry(
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
            batch.entries.append(item)
        }
        return batch
    }
}
