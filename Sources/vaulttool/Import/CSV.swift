// vaulttool: RFC 4180 CSV, as KeePassXC and spreadsheets write it.

/// Parses comma-separated values: quoted fields may hold commas, newlines and `""`.
enum CSV {
    /// The rows of `bytes` (UTF-8, optional byte-order mark, LF or CRLF line ends).
    ///
    /// - Throws: ``ImportProblem`` for invalid UTF-8 or an unterminated quote.
    static func parse(_ bytes: [UInt8]) throws -> [[String]] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else { throw ImportProblem("not UTF-8 text") }
        var rows = [[String]]()
        var row = [String]()
        var field = ""
        var quoted = false
        var chars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return chars.next()
        }
        var atFieldStart = true
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let following = next() {
                        if following == "\"" {
                            field.unicodeScalars.append("\"")
                        } else {
                            quoted = false
                            pending = following
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"" where atFieldStart:
                quoted = true
                atFieldStart = false
            case ",":
                row.append(field)
                field = ""
                atFieldStart = true
            case "\r":
                continue
            case "\n":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
                atFieldStart = true
            default:
                field.unicodeScalars.append(c)
                atFieldStart = false
            }
        }
        if quoted { throw ImportProblem("a quoted field is not closed") }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows.filter { $0 != [""] }
    }

    /// Rows as dictionaries keyed by the header row's names.
    static func records(_ bytes: [UInt8]) throws -> (header: [String], rows: [[String: String]]) {
        let rows = try parse(bytes)
        guard let header = rows.first else { throw ImportProblem("the file is empty") }
        var out = [[String: String]]()
        for (number, row) in rows.dropFirst().enumerated() {
            guard row.count == header.count else {
                throw ImportProblem("row \(number + 2) has \(row.count) fields; the header has \(header.count)")
            }
            out.append(Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first }))
        }
        return (header, out)
    }
}
