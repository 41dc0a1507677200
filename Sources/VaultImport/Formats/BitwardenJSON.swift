// vault: Bitwarden's unencrypted JSON export.

import FoundationEssentials

/// `bw export --format json` (or the web vault's "File > Export vault > .json").
///
/// Logins (type 1) become internet or generic passwords, secure notes (type 2) generic
/// passwords whose secret is the note; cards, identities and SSH keys are skipped.
///
/// Spec: Spec/cli.md, "bitwarden-json".
enum BitwardenJSON {
    struct Export: Decodable {
        var encrypted: Bool?
        var folders: [Folder]?
        var items: [Item]
    }
    struct Folder: Decodable {
        var id: String
        var name: String
    }
    struct Item: Decodable {
        var id: String?
        var folderId: String?
        var type: Int
        var name: String?
        var notes: String?
        var fields: [Field]?
        var login: Login?
        var creationDate: String?
        var revisionDate: String?
        var deletedDate: String?
    }
    struct Field: Decodable {
        var name: String?
        var value: String?
        var type: Int
    }
    struct Login: Decodable {
        var uris: [URI]?
        var username: String?
        var password: String?
        var totp: String?
    }
    struct URI: Decodable {
        var uri: String?
    }

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let export = try DecodingProblem.decode(Export.self, from: bytes) { "not a Bitwarden JSON export (\($0))" }
        if export.encrypted == true {
            throw ImportProblem(
                "the export is encrypted; export it again as unencrypted JSON",
                code: .encrypted,
                field: "encrypted"
            )
        }
        let folders = Dictionary((export.folders ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var batch = ImportBatch()
        for item in export.items { add(item, folder: item.folderId.flatMap { folders[$0] } ?? "", to: &batch) }
        return batch
    }

    private static func add(_ item: Item, folder: String, to batch: inout ImportBatch) {
        let title = item.name ?? ""
        let display = EntryMapping.displayName(title, folder: folder)
        if item.deletedDate != nil {
            batch.skip(display, .excluded("in the trash"))
            return
        }
        let created = item.creationDate.flatMap(ExportDates.date).map { Int64($0.timeIntervalSince1970 * 1000) }
        let modified = item.revisionDate.flatMap(ExportDates.date).map { Int64($0.timeIntervalSince1970 * 1000) }
        var entry: ImportEntry
        switch item.type {
        case 1:
            let login = item.login ?? Login()
            let uris = (login.uris ?? []).compactMap(\.uri).filter { !$0.isEmpty }
            entry = EntryMapping.entry(
                title: title,
                username: login.username ?? "",
                password: login.password ?? "",
                url: uris.first ?? "",
                notes: item.notes ?? "",
                folder: folder,
                created: created,
                modified: modified
            )
            if uris.count > 1 { batch.notes.append("\(display): only the first of \(uris.count) URIs kept") }
            if let totp = login.totp, !totp.isEmpty { batch.notes.append("\(display): TOTP not imported") }
        case 2:
            entry = EntryMapping.entry(
                title: title,
                username: "",
                password: item.notes ?? "",
                url: "",
                notes: "",
                folder: folder,
                created: created,
                modified: modified
            )
            entry.attributes.itemDescription = folder.isEmpty ? "secure note" : folder
        case 3:
            batch.skip(display, .excluded("cards are not imported"))
            return
        case 4:
            batch.skip(display, .excluded("identities are not imported"))
            return
        case 5:
            batch.skip(display, .excluded("SSH keys are not imported"))
            return
        default:
            batch.skip(display, .excluded("unknown item type \(item.type)"))
            return
        }
        var extra = [String: String]()
        for field in item.fields ?? [] {
            let name = field.name ?? ""
            switch field.type {
            case 0, 2: extra[name] = field.value ?? ""
            case 1: batch.notes.append("\(display): hidden field '\(name)' not imported")
            default: batch.notes.append("\(display): linked field '\(name)' not imported")
            }
        }
        entry.attributes.generic = EntryMapping.generic(extra)
        if !extra.isEmpty {
            batch.notes.append("\(display): \(extra.count) custom fields kept in the generic attribute")
        }
        batch.entries.append(entry)
    }
}
