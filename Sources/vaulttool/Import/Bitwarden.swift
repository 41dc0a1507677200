// vaulttool: Bitwarden's unencrypted JSON export.

import Foundation
import VaultIO

/// `bw export --format json` (or the web vault's "File > Export vault > .json").
///
/// Logins (type 1) become internet or generic passwords, secure notes (type 2) generic
/// passwords whose secret is the note; cards, identities and SSH keys are skipped.
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
        let export: Export
        do {
            export = try JSONDecoder().decode(Export.self, from: Data(bytes))
        } catch {
            throw ImportProblem("not a Bitwarden JSON export (\(describe(error)))")
        }
        if export.encrypted == true {
            throw ImportProblem("the export is encrypted; export it again as unencrypted JSON")
        }
        let folders = Dictionary((export.folders ?? []).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var batch = ImportBatch()
        for entry in export.items {
            let title = entry.name ?? ""
            let folder = entry.folderId.flatMap { folders[$0] } ?? ""
            let display = folder.isEmpty ? title : "\(title) (\(folder))"
            if entry.deletedDate != nil {
                batch.skipped.append((display, "in the trash"))
                continue
            }
            let created = entry.creationDate.flatMap(ItemDates.date).map { Int64($0.timeIntervalSince1970 * 1000) }
            let modified = entry.revisionDate.flatMap(ItemDates.date).map { Int64($0.timeIntervalSince1970 * 1000) }
            var item: ImportedItem
            switch entry.type {
            case 1:
                let login = entry.login ?? Login()
                let uris = (login.uris ?? []).compactMap(\.uri).filter { !$0.isEmpty }
                item = EntryMapping.item(
                    title: title,
                    username: login.username ?? "",
                    password: login.password ?? "",
                    url: uris.first ?? "",
                    notes: entry.notes ?? "",
                    folder: folder,
                    created: created,
                    modified: modified
                )
                if uris.count > 1 { batch.notes.append("\(display): only the first of \(uris.count) URIs kept") }
                if let totp = login.totp, !totp.isEmpty { batch.notes.append("\(display): TOTP not imported") }
            case 2:
                item = EntryMapping.item(
                    title: title,
                    username: "",
                    password: entry.notes ?? "",
                    url: "",
                    notes: "",
                    folder: folder,
                    created: created,
                    modified: modified
                )
                item.attributes.itemDescription = folder.isEmpty ? "secure note" : folder
            case 3:
                batch.skipped.append((display, "cards are not imported"))
                continue
            case 4:
                batch.skipped.append((display, "identities are not imported"))
                continue
            case 5:
                batch.skipped.append((display, "SSH keys are not imported"))
                continue
            default:
                batch.skipped.append((display, "unknown item type \(entry.type)"))
                continue
            }
            var extra = [String: String]()
            for field in entry.fields ?? [] {
                let name = field.name ?? ""
                switch field.type {
                case 0, 2: extra[name] = field.value ?? ""
                case 1: batch.notes.append("\(display): hidden field '\(name)' not imported")
                default: batch.notes.append("\(display): linked field '\(name)' not imported")
                }
            }
            item.attributes.generic = EntryMapping.generic(extra)
            if !extra.isEmpty {
                batch.notes.append("\(display): \(extra.count) custom fields kept in the generic attribute")
            }
            batch.items.append(item)
        }
        return batch
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no '\(key.stringValue)' key"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "unexpected value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "not valid JSON"
        }
    }
}
