// vault: the generic CSV layout (Spec/cli.md, "The generic CSV layout").

import VaultIO

/// The CSV layout: a header row naming columns after the JSON keys; `secret` is required.
enum GenericCSV {
    static let columns: Set<String> = [
        "class", "accessibility", "service", "account", "accessGroup", "label", "comment", "description",
        "server", "protocol", "port", "path", "securityDomain", "authenticationType", "synchronizable",
        "created", "modified", "id", "secret", "secretBase64",
    ]

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let (header, rows) = try CSV.records(bytes)
        guard header.contains("secret") || header.contains("secretBase64") else {
            throw ImportProblem("no 'secret' column", code: .missingField, field: "secret")
        }
        var batch = ImportBatch()
        for column in header where !columns.contains(column) {
            batch.notes.append("column '\(column)' ignored")
        }
        for (number, row) in rows.enumerated() {
            let name = "row \(number + 2)"
            do {
                batch.add(try item(row), name: name)
            } catch let problem as ImportProblem {
                batch.skip(name, .invalid(problem.reason))
            }
        }
        return batch
    }

    /// The item of one row: the same rules as the JSON layout's keys (empty cells are absent).
    ///
    /// Read directly, not through a JSON round trip (JSONSerialization, then JSONDecoder):
    /// that was 300 ms of an import of 10,000 rows.
    static func item(_ row: [String: String]) throws -> GenericItem {
        func text(_ key: String) -> String? {
            guard let value = row[key], !value.isEmpty else { return nil }
            return value
        }
        let itemClass = try GenericItem.itemClass(text("class"))
        let accessibility = try GenericItem.accessibility(text("accessibility"))
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
                throw ImportProblem("port '\(port)' is not a number from 0 to 65535", field: "port")
            }
            a.port = value
        }
        a.synchronizable = text("synchronizable").map { ["true", "1", "yes"].contains($0.lowercased()) } ?? false
        a.creationDate = try ExportDates.parse(text("created"))
        a.modificationDate = try ExportDates.parse(text("modified"))
        var item = GenericItem(id: text("id"), itemClass: itemClass, accessibility: accessibility, attributes: a)
        item.secret = text("secret")
        item.secretBase64 = text("secretBase64")
        return item
    }
}
