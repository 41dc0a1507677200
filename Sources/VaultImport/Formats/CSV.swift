// vault: RFC 4180 CSV, as KeePassXC and spreadsheets write it.

/// Parses comma-separated values: quoted fields may hold commas, newlines and `""`.
enum CSV {
    /// The rows of `bytes` (UTF-8, optional byte-order mark, LF or CRLF line ends).
    ///
    /// - Throws: ``ImportProblem`` for invalid UTF-8 or an unterminated quote (naming the row
    ///   where the quote opened).
    static func parse(_ bytes: [UInt8]) throws -> [[String]] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard String(validating: body, as: UTF8.self) != nil else { throw ImportProblem("not UTF-8 text") }
        // Byte by byte: the delimiters are ASCII, and no byte of a multi-byte UTF-8 sequence
        // is ASCII, so splitting bytes splits the same fields as splitting characters (and is
        // several times faster). Each field is decoded once, when it ends.
        var rows = [[String]]()
        var row = [String]()
        var field = [UInt8]()
        var quoted = false
        var quoteRow = 0
        var atFieldStart = true
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        var index = body.startIndex
        while index < body.endIndex {
            let c = body[index]
            index += 1
            if quoted {
                if c == 0x22 {
                    if index < body.endIndex && body[index] == 0x22 {
                        field.append(0x22)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
                continue
            }
            switch c {
            case 0x22 where atFieldStart:
                quoted = true
                quoteRow = rows.count + 1
                atFieldStart = false
            case 0x2C:
                endField()
                atFieldStart = true
            case 0x0D:
                continue
            case 0x0A:
                endField()
                rows.append(row)
                row = []
                atFieldStart = true
            default:
                field.append(c)
                atFieldStart = false
            }
        }
        if quoted { throw ImportProblem("a quoted field is not closed", row: quoteRow) }
        if !field.isEmpty || !row.isEmpty {
            endField()
            rows.append(row)
        }
        return rows.filter { $0 != [""] }
    }

    /// Rows as dictionaries keyed by the header row's names.
    ///
    /// - Throws: ``ImportProblem`` as ``parse(_:)``, for an empty file, or for a row whose
    ///   number of fields differs from the header's.
    static func records(_ bytes: [UInt8]) throws -> (header: [String], rows: [[String: String]]) {
        let rows = try parse(bytes)
        guard let header = rows.first else { throw ImportProblem("the file is empty") }
        var out = [[String: String]]()
        for (number, row) in rows.dropFirst().enumerated() {
            guard row.count == header.count else {
                throw ImportProblem(
                    "row \(number + 2) has \(row.count) fields; the header has \(header.count)",
                    code: .rowLength,
                    row: number + 2
                )
            }
            out.append(Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first }))
        }
        return (header, out)
    }
}
