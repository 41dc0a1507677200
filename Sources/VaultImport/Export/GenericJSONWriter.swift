// vault: writing items in the generic JSON layout without JSONEncoder, for `list --json`.

import FoundationEssentials
import VaultIO

/// Writes items of the generic layout (``GenericJSONLayout/Item``) with the same bytes as
/// JSONEncoder with `.prettyPrinted`, `.sortedKeys` and `.withoutEscapingSlashes`: two-space
/// indentation, `"key" : value`, keys in byte order, `/` not escaped.
///
/// JSONEncoder builds a tree of boxed values and sorts every object's keys; at 10,000 items
/// that was 190 ms of `list --json`'s 320 ms. This writer appends bytes directly, with the
/// keys of ``GenericJSONLayout/ItemKey`` sorted once.
///
/// Spec: Spec/cli.md, "list --json".
public struct GenericJSONWriter: Sendable {
    /// What has been written.
    public private(set) var bytes: [UInt8] = []

    init(capacity: Int = Self.chunkSize + 4096) { bytes.reserveCapacity(capacity) }

    /// The item objects of one chunk of a scan, rendered inside the chunk: every item without
    /// its secret, at the depth `list --json` prints it, back to back.
    public struct Items: ItemSink {
        var writer = GenericJSONWriter(capacity: 0)
        /// Where each item's object ends in `writer.bytes`.
        var ends: [Int] = []
        var ids: [ItemID] = []

        public init() {}

        public mutating func reserve(_ count: Int) {
            // An item without a secret is about 770 bytes of JSON.
            writer.bytes.reserveCapacity(count * 800)
            ends.reserveCapacity(count)
            ids.reserveCapacity(count)
        }

        public mutating func add(_ item: DecodedItem) {
            writer.item(
                item.attributes,
                id: item.entry.itemID.description,
                itemClass: item.entry.itemClass,
                accessibility: item.entry.protectionClass,
                version: item.entry.version,
                secretLength: item.entry.secretLength,
                depth: 2
            )
            ends.append(writer.bytes.count)
            ids.append(item.entry.itemID)
        }
    }

    /// Writes `{"items": [...], "unavailable": n}` and a newline, as `list --json` prints it,
    /// to `sink` in pieces of about 64 KiB: the items of every chunk, sorted by ID.
    public static func writeListReport(_ chunks: [Items], unavailable: Int, to sink: ([UInt8]) -> Void) {
        var order = [(id: ItemID, chunk: Int32, item: Int32)]()
        order.reserveCapacity(chunks.reduce(0) { $0 + $1.ids.count })
        for (c, chunk) in chunks.enumerated() {
            for (index, id) in chunk.ids.enumerated() { order.append((id, Int32(c), Int32(index))) }
        }
        order.sort { $0.id < $1.id }
        var writer = GenericJSONWriter()
        writer.raw("{\n  \"items\" : [")
        if order.isEmpty {
            writer.raw("\n\n  ]")
        } else {
            for (index, place) in order.enumerated() {
                writer.raw(index == 0 ? "\n" : ",\n")
                writer.indent(2)
                let chunk = chunks[Int(place.chunk)]
                let item = Int(place.item)
                writer.bytes.append(
                    contentsOf: chunk.writer.bytes[(item == 0 ? 0 : chunk.ends[item - 1])..<chunk.ends[item]]
                )
                if writer.bytes.count >= Self.chunkSize {
                    sink(writer.bytes)
                    writer.bytes.removeAll(keepingCapacity: true)
                }
            }
            writer.raw("\n  ]")
        }
        writer.raw(",\n  \"unavailable\" : \(unavailable)\n}\n")
        sink(writer.bytes)
    }

    /// Output is handed to the sink in pieces of about this size.
    static let chunkSize = 1 << 16

    /// One item object at `depth` (the caller wrote the indentation before it).
    mutating func item(_ record: GenericJSONLayout.Item, depth: Int) {
        item(
            record.attributes,
            id: record.id,
            itemClass: record.itemClass,
            accessibility: record.accessibility,
            version: record.version,
            secretLength: record.secretLength,
            secret: record.secret,
            secretBase64: record.secretBase64,
            depth: depth
        )
    }

    /// The layout's keys in byte order (as `.sortedKeys` orders them), with their names' bytes.
    private static let sortedKeys: [(key: GenericJSONLayout.ItemKey, name: [UInt8])] =
        GenericJSONLayout.ItemKey.allCases.map { ($0, Array($0.rawValue.utf8)) }
        .sorted { $0.name.lexicographicallyPrecedes($1.name) }

    /// One item object, from its parts (the keys of ``GenericJSONLayout/Item``); a key whose
    /// value is `nil` among `version`, `secret`, `secretBase64` and `secretLength` is left out.
    mutating func item(
        _ a: ItemAttributes,
        id: String?,
        itemClass: ItemClass,
        accessibility: ProtectionClass,
        version: UInt64?,
        secretLength: Int?,
        secret: String? = nil,
        secretBase64: String? = nil,
        depth: Int
    ) {
        let d = depth + 1
        raw("{")
        var first = true
        for (key, name) in Self.sortedKeys {
            switch key {
            case .version: guard version != nil else { continue }
            case .secret: guard secret != nil else { continue }
            case .secretBase64: guard secretBase64 != nil else { continue }
            case .secretLength: guard secretLength != nil else { continue }
            default: break
            }
            member(name, d, first: first)
            first = false
            switch key {
            case .accessGroup: string(a.accessGroup)
            case .accessibility: string(accessibility.description)
            case .account: string(a.account)
            case .authenticationType: string(a.authenticationType)
            case .itemClass: string(itemClass.description)
            case .comment: string(a.comment)
            case .created: optionalString(RFC3339.itemDate(a.creationDate))
            case .creator: number(UInt64(a.creator))
            case .description: string(a.itemDescription)
            case .generic:
                if a.generic.isEmpty { raw("\"\"") } else { string(Data(a.generic).base64EncodedString()) }
            case .id: optionalString(id)
            case .invisible: bool(a.isInvisible)
            case .label: string(a.label)
            case .modified: optionalString(RFC3339.itemDate(a.modificationDate))
            case .negative: bool(a.isNegative)
            case .path: string(a.path)
            case .port: number(UInt64(a.port))
            case .preserved: preserved(a.preserved, depth: d)
            case .protocol: string(a.protocol)
            case .secret: string(secret ?? "")
            case .secretBase64: string(secretBase64 ?? "")
            case .secretLength: number(UInt64(secretLength ?? 0))
            case .securityDomain: string(a.securityDomain)
            case .server: string(a.server)
            case .service: string(a.service)
            case .synchronizable: bool(a.synchronizable)
            case .type: number(UInt64(a.type))
            case .version: number(version ?? 0)
            }
        }
        raw("\n")
        indent(depth)
        raw("}")
    }

    private mutating func preserved(_ values: [PreservedAttribute], depth: Int) {
        guard !values.isEmpty else {
            raw("[\n\n")
            indent(depth)
            raw("]")
            return
        }
        raw("[")
        for (index, value) in values.enumerated() {
            raw(index == 0 ? "\n" : ",\n")
            indent(depth + 1)
            raw("{\n")
            indent(depth + 2)
            raw("\"tag\" : ")
            number(UInt64(value.tag))
            raw(",\n")
            indent(depth + 2)
            raw("\"value\" : ")
            string(Data(value.value).base64EncodedString())
            raw("\n")
            indent(depth + 1)
            raw("}")
        }
        raw("\n")
        indent(depth)
        raw("]")
    }

    // MARK: - Values

    /// `,\n`, the indentation and `"name" : `.
    mutating func member(_ name: [UInt8], _ depth: Int, first: Bool = false) {
        if !first { bytes.append(0x2C) }
        bytes.append(0x0A)
        indent(depth)
        bytes.append(0x22)
        bytes.append(contentsOf: name)
        bytes.append(0x22)
        bytes.append(0x20)
        bytes.append(0x3A)
        bytes.append(0x20)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func indent(_ depth: Int) {
        bytes.append(contentsOf: repeatElement(0x20, count: min(depth * 2, 64)))
    }

    mutating func number(_ value: UInt64) { raw(String(value)) }

    mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    /// A JSON string: `"` and `\` escaped, `\b \f \n \r \t`, other controls below 0x20 as
    /// `\u00xx`; everything else (`/`, DEL, non-ASCII) as is, as JSONEncoder writes it.
    mutating func string(_ value: String) {
        bytes.append(0x22)
        // Most attribute text needs no escape at all: checked and copied in one pass over its
        // contiguous UTF-8.
        let plain = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain == true {
            bytes.append(0x22)
            return
        }
        for byte in value.utf8 {
            switch byte {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x08: bytes.append(0x5C); bytes.append(0x62)
            case 0x0C: bytes.append(0x5C); bytes.append(0x66)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0x00..<0x20:
                let digits: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
