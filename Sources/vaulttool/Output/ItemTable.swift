// vaulttool: the table `list` prints, one line per item, rendered inside the scan's chunks.

import Glibc
import VaultDelivery
import VaultIO

/// One human-readable line per item: never a secret, only its size.
///
/// Each chunk of a scan escapes and measures its own rows (``Rows``); only the sort and the
/// padding, which need every row, run after the chunks. Spec: Spec/cli.md, "list".
enum ItemTable {
    static let header = [
        "CLASS", "ACCESSIBILITY", "SERVICE/SERVER", "ACCOUNT", "ACCESS GROUP", "LABEL", "MODIFIED", "SIZE",
    ]
    static let columns = header.count
    /// Rows are sorted by this column (service or server), then the next (account).
    static let sortColumn = 2

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

        mutating func reserve(_ count: Int) {
            bytes.reserveCapacity(count * 128)
            ends.reserveCapacity(count * ItemTable.columns)
            widths.reserveCapacity(count * ItemTable.columns)
        }

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
            let plain = TerminalText.isPrintableASCII(raw)
            let text = plain ? raw : TerminalText.escaped(raw)
            let width = plain ? raw.utf8.count : TerminalText.width(text)
            bytes.append(contentsOf: text.utf8)
            ends.append(bytes.count)
            widths.append(width)
            if width > columnWidths[column] { columnWidths[column] = width }
        }

        /// Appends `other`'s rows after these.
        mutating func append(_ other: Rows) {
            let shift = bytes.count
            bytes += other.bytes
            ends += other.ends.map { $0 + shift }
            widths += other.widths
            for column in 0..<ItemTable.columns {
                columnWidths[column] = max(columnWidths[column], other.columnWidths[column])
            }
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
        var rows = chunks.first ?? Rows()
        if chunks.count > 1 {
            rows.reserve(chunks.reduce(0) { $0 + $1.count })
            for chunk in chunks.dropFirst() { rows.append(chunk) }
        }
        var widths = header.map(TerminalText.width)
        for column in 0..<columns { widths[column] = max(widths[column], rows.columnWidths[column]) }
        let order = sortedRows(rows)
        var head = [UInt8]()
        for column in 0..<columns {
            head += header[column].utf8
            if column < columns - 1 {
                head += repeatElement(0x20, count: widths[column] + 2 - TerminalText.width(header[column]))
            }
        }
        head.append(0x0A)
        // Every cell's bytes, plus at most its column's width and two spaces of padding, and a
        // newline per row: the table fits, and is written through pointers (no slice per cell).
        let capacity = head.count + rows.bytes.count + rows.count * (widths.reduce(0, +) + 2 * columns + 1)
        return [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
            func put(_ source: UnsafeBufferPointer<UInt8>) {
                guard let base = source.baseAddress, !source.isEmpty else { return }
                (out.baseAddress! + written).update(from: base, count: source.count)
                written += source.count
            }
            head.withUnsafeBufferPointer(put)
            rows.bytes.withUnsafeBufferPointer { bytes in
                for row in order {
                    let first = row * columns
                    var start = first == 0 ? 0 : rows.ends[first - 1]
                    for column in 0..<columns {
                        let end = rows.ends[first + column]
                        put(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                        start = end
                        if column == columns - 1 {
                            out[written] = 0x0A
                            written += 1
                        } else {
                            let padding = max(0, widths[column] + 2 - rows.widths[first + column])
                            (out.baseAddress! + written).initialize(repeating: 0x20, count: padding)
                            written += padding
                        }
                    }
                }
            }
        }
    }

    /// The rows' indices, sorted by the sort column's cell, then the next one's, byte by byte.
    private static func sortedRows(_ rows: Rows) -> [Int] {
        rows.bytes.withUnsafeBufferPointer { bytes in
            rows.ends.withUnsafeBufferPointer { ends in
                // The two cells are adjacent: [start, middle) and [middle, end).
                func cells(_ row: Int) -> (start: Int, middle: Int, end: Int) {
                    let index = row * columns + sortColumn
                    return (ends[index - 1], ends[index], ends[index + 1])
                }
                func compare(_ x: Range<Int>, _ y: Range<Int>) -> Int {
                    let common = min(x.count, y.count)
                    let result =
                        common == 0
                        ? 0 : memcmp(bytes.baseAddress! + x.lowerBound, bytes.baseAddress! + y.lowerBound, common)
                    return result != 0 ? Int(result) : x.count - y.count
                }
                return (0..<rows.count).sorted { a, b in
                    let x = cells(a)
                    let y = cells(b)
                    let first = compare(x.start..<x.middle, y.start..<y.middle)
                    if first != 0 { return first < 0 }
                    return compare(x.middle..<x.end, y.middle..<y.end) < 0
                }
            }
        }
    }
}
