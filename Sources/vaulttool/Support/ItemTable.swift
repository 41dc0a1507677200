// vaulttool: the table `list` prints, one line per item, rendered inside the scan's chunks.

import Glibc
import VaultFormat

/// One human-readable line per item: never a secret, only its size.
///
/// Each chunk of a scan escapes and measures its own rows (``Rows``); only the sort and the
/// padding, which need every row, run after the chunks. Spec: Spec/cli.md, "list".
enum ItemTable {
    static let header = [
        "CLASS", "ACCESSIBILITY", "SERVICE/SERVER", "ACCOUNT", "ACCESS GROUP", "LABEL", "MODIFIED", "SIZE",
    ]
    static let columns = header.count
    /// The columns rows are sorted by: service or server, then account.
    static let sortColumns = (2, 3)

    /// The cells of one chunk's rows: escaped (``TerminalText``), back to back, with each cell's
    /// end and display width.
    struct Rows: ItemSink {
        var bytes: [UInt8] = []
        /// `columns` entries per row: where each cell ends in `bytes`.
        var ends: [Int] = []
        /// `columns` entries per row: each cell's width in terminal columns.
        var widths: [Int] = []
        /// The widest cell of each column in these rows.
        var columnWidths = [Int](repeating: 0, count: ItemTable.columns)

        var count: Int { ends.count / ItemTable.columns }

        mutating func add(_ item: DecodedItem) {
            let a = item.attributes
            let internet = item.entry.itemClass == .internetPassword
            cell(internet ? "internet" : "generic", 0)
            cell(item.entry.protectionClass.description, 1)
            if internet {
                var place = a.server
                if !a.protocol.isEmpty { place = "\(a.protocol)://\(place)" }
                if a.port != 0 { place += ":\(a.port)" }
                cell(place + a.path, 2)
            } else {
                cell(a.service, 2)
            }
            cell(a.account, 3)
            cell(a.accessGroup.isEmpty ? "-" : a.accessGroup, 4)
            cell(a.label.isEmpty ? "-" : a.label, 5)
            cell(a.modificationDate != 0 ? Output.date(a.modificationDate) : "-", 6)
            cell("\(item.entry.secretLength) B", 7)
        }

        private mutating func cell(_ raw: String, _ column: Int) {
            let text = TerminalText.escaped(raw)
            let width = TerminalText.width(text)
            bytes.append(contentsOf: text.utf8)
            ends.append(bytes.count)
            widths.append(width)
            if width > columnWidths[column] { columnWidths[column] = width }
        }

        /// The cell at `column` of `row`, as a range of `bytes`.
        func range(_ row: Int, _ column: Int) -> Range<Int> {
            let index = row * ItemTable.columns + column
            return (index == 0 ? 0 : ends[index - 1])..<ends[index]
        }
    }

    /// The aligned table of `items`, sorted by service/server then account.
    static func text(_ items: [DecodedItem]) -> String { String(decoding: bytes(items), as: UTF8.self) }

    /// The table's UTF-8 bytes.
    static func bytes(_ items: [DecodedItem]) -> [UInt8] {
        var rows = Rows()
        for item in items { rows.add(item) }
        return bytes([rows])
    }

    /// The table's UTF-8 bytes from the rows of every chunk: sorted by service/server, then
    /// account (byte order of the escaped UTF-8, which is code point order), and padded to
    /// each column's widest cell.
    static func bytes(_ chunks: [Rows]) -> [UInt8] {
        var widths = header.map(TerminalText.width)
        for chunk in chunks {
            for column in 0..<columns { widths[column] = max(widths[column], chunk.columnWidths[column]) }
        }
        var order = [(chunk: Int32, row: Int32)]()
        order.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
        for (c, chunk) in chunks.enumerated() {
            for row in 0..<chunk.count { order.append((Int32(c), Int32(row))) }
        }
        order.sort { x, y in
            let a = chunks[Int(x.chunk)]
            let b = chunks[Int(y.chunk)]
            let first = compare(a, Int(x.row), b, Int(y.row), column: sortColumns.0)
            if first != 0 { return first < 0 }
            return compare(a, Int(x.row), b, Int(y.row), column: sortColumns.1) < 0
        }
        var out = [UInt8]()
        out.reserveCapacity((order.count + 1) * (widths.reduce(0, +) + 2 * columns + 1))
        let spaces = [UInt8](repeating: 0x20, count: (widths.max() ?? 0) + 2)
        func pad(_ column: Int, _ width: Int) {
            if column == columns - 1 {
                out.append(0x0A)
            } else {
                out.append(contentsOf: spaces[0..<max(0, widths[column] + 2 - width)])
            }
        }
        for column in 0..<columns {
            out.append(contentsOf: header[column].utf8)
            pad(column, TerminalText.width(header[column]))
        }
        for (c, row) in order {
            let chunk = chunks[Int(c)]
            for column in 0..<columns {
                out.append(contentsOf: chunk.bytes[chunk.range(Int(row), column)])
                pad(column, chunk.widths[Int(row) * columns + column])
            }
        }
        return out
    }

    /// Compares one cell of two rows byte by byte, as `memcmp` then length.
    private static func compare(_ a: Rows, _ rowA: Int, _ b: Rows, _ rowB: Int, column: Int) -> Int {
        let x = a.range(rowA, column)
        let y = b.range(rowB, column)
        let common = min(x.count, y.count)
        let result = a.bytes.withUnsafeBytes { pa in
            b.bytes.withUnsafeBytes { pb in
                common == 0 ? 0 : memcmp(pa.baseAddress! + x.lowerBound, pb.baseAddress! + y.lowerBound, common)
            }
        }
        if result != 0 { return Int(result) }
        return x.count - y.count
    }
}
