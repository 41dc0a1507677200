// vaulttool: the generic JSON and CSV layouts (Spec/cli.md, "Generic layouts").

import Foundation
import VaultIO

/// The JSON that `export` writes: `{"format": "vault-items", "version": 1, "items": [...]}`.
enum GenericJSON {
    struct Document: Decodable {
        var format: String?
        var version: Int?
        var items: [Entry]
    }

    /// One item, decoded leniently so that one bad item is skipped rather than failing the file.
    struct Entry: Decodable {
        var result: Result<ItemRecord, ImportProblem>
        init(from decoder: any Decoder) throws {
            do {
                result = .success(try ItemRecord(from: decoder))
            } catch let problem as ImportProblem {
                result = .failure(problem)
            } catch {
                result = .failure(ImportProblem(BitwardenJSON.describe(error)))
            }
        }
    }

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch {
            throw ImportProblem("not the generic JSON layout (\(BitwardenJSON.describe(error)))")
        }
        if let format = document.format, format != "vault-items" {
            throw ImportProblem("the format is '\(format)', not 'vault-items'")
        }
        if let version = document.version, version != 1 {
            throw ImportProblem("layout version \(version) needs a newer vaulttool")
        }
        var batch = ImportBatch()
        for (number, entry) in document.items.enumerated() {
            switch entry.result {
            case .failure(let problem):
                batch.skipped.append(("item \(number + 1)", problem.reason))
            case .success(let record):
                batch.add(record, name: "item \(number + 1)")
            }
        }
        return batch
    }
}

/// The CSV layout: a header row naming columns after the JSON keys; `secret` is required.
enum GenericCSV {
    static let columns: Swift.Set<String> = [
        "class", "accessibility", "service", "account", "accessGroup", "label", "comment", "description",
        "server", "protocol", "port", "path", "securityDomain", "authenticationType", "synchronizable",
        "created", "modified", "id", "secret", "secretBase64",
    ]

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let (header, rows) = try CSV.records(bytes)
        guard header.contains("secret") || header.contains("secretBase64") else {
            throw ImportProblem("no 'secret' column")
        }
        var batch = ImportBatch()
        for column in header where !columns.contains(column) {
            batch.notes.append("column '\(column)' ignored")
        }
        for (number, row) in rows.enumerated() {
            let name = "row \(number + 2)"
            do {
                batch.add(try record(row), name: name)
            } catch let problem as ImportProblem {
                batch.skipped.append((name, problem.reason))
            }
        }
        return batch
    }

    /// The item of one row: the same rules as the JSON layout's keys (empty cells are absent).
    ///
    /// Read directly, not through a JSON round trip (JSONSerialization, then JSONDecoder):
    /// that was 300 ms of an import of 10,000 rows.
    static func record(_ row: [String: String]) throws -> ItemRecord {
        func text(_ key: String) -> String? {
            guard let value = row[key], !value.isEmpty else { return nil }
            return value
        }
        let className = text("class") ?? "genericPassword"
        guard let itemClass = ItemClass.allCases.first(where: { $0.description == className }) else {
            throw ImportProblem("unknown class '\(className)'")
        }
        let accessName = text("accessibility") ?? "whenUnlocked"
        guard let accessibility = ProtectionClass(name: accessName) else {
            throw ImportProblem("unknown accessibility '\(accessName)'")
        }
        var a = ItemAttributes(service: text("service") ?? "", account: text("account") ?? "")
        a.accessGroup = text("accessGroup") ?? ""
        a.label = text("label") ?? ""
        a.comment = text("comment") ?? ""
        a.itemDescription = text("description") ?? ""
        a.server = text("server") ?? ""
        a.protocol = text("protocol") ?? ""
        a.path = text("path") ?? ""
        a.securityDomain = text("securityDomain") ?? ""
        a.authenticationType = text("authenticationType") ?? ""
        if let port = text("port") {
            guard let value = UInt16(port) else {
                throw ImportProblem("port '\(port)' is not a number from 0 to 65535")
            }
            a.port = value
        }
        a.synchronizable = text("synchronizable").map { ["true", "1", "yes"].contains($0.lowercased()) } ?? false
        a.creationDate = try ItemDates.parse(text("created"))
        a.modificationDate = try ItemDates.parse(text("modified"))
        var record = ItemRecord(id: text("id"), itemClass: itemClass, accessibility: accessibility, attributes: a)
        record.secret = text("secret")
        record.secretBase64 = text("secretBase64")
        return record
    }
}

extension ImportBatch {
    /// Adds a generic-layout record, or skips it with the reason.
    mutating func add(_ record: ItemRecord, name: String) {
        do {
            var display = name
            let a = record.attributes
            let place = record.itemClass == .internetPassword ? a.server : a.service
            if !place.isEmpty || !a.account.isEmpty {
                display += " (\(place)\(a.account.isEmpty ? "" : ", \(a.account)"))"
            }
            var id: ItemID?
            if let text = record.id {
                guard let value = ItemID(hex: text) else { throw ImportProblem("id is not 32 hex digits") }
                id = value
            }
            if record.itemClass == .genericPassword && a.hasInternetFields {
                throw ImportProblem("a generic password with internet attributes")
            }
            items.append(
                ImportedItem(
                    name: display,
                    itemClass: record.itemClass,
                    accessibility: record.accessibility,
                    attributes: a,
                    secret: try record.secretBytes(),
                    id: id
                )
            )
        } catch let problem as ImportProblem {
            skipped.append((name, problem.reason))
        } catch {
            skipped.append((name, "\(error)"))
        }
    }
}
