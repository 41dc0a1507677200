// vaulttool: writing items as JSON without JSONEncoder, for `list --json`.

import FoundationEssentials
import Glibc
import VaultIO

/// Writes ``ItemRecord``s as JSON with the same bytes as `Output.json` (JSONEncoder with
/// `.prettyPrinted`, `.sortedKeys`, `.withoutEscapingSlashes`): two-space indentation,
/// `"key" : value`, keys in byte order, `/` not escaped.
///
/// JSONEncoder builds a tree of boxed values and sorts every object's keys; at 10,000 items
/// that was 190 ms of `list --json`'s 320 ms. This writer appends bytes directly, with
/// the keys already in order. Spec: Spec/cli.md, "list --json".
struct ItemJSONWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = Self.chunkSize + 4096) { bytes.reserveCapacity(capacity) }

    /// The item objects of one chunk of a scan, rendered inside the chunk: every item without
    /// its secret, at the depth `list --json` prints it, back to back.
    struct Items: ItemSink {
        var writer = ItemJSONWriter(capacity: 0)
        /// Where each item's object ends in `writer.bytes`.
        var ends: [Int] = []
        var ids: [ItemID] = []

        mutating func reserve(_ count: Int) {
            // An item without a secret is about 770 bytes of JSON.
            writer.bytes.reserveCapacity(count * 800)
            ends.reserveCapacity(count)
            ids.reserveCapacity(count)
        }

        mutating func add(_ item: DecodedItem) {
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
    static func writeListReport(_ chunks: [Items], unavailable: Int, to sink: ([UInt8]) -> Void) {
        var order = [(id: ItemID, chunk: Int32, item: Int32)]()
        order.reserveCapacity(chunks.reduce(0) { $0 + $1.ids.count })
        for (c, chunk) in chunks.enumerated() {
            for (index, id) in chunk.ids.enumerated() { order.append((id, Int32(c), Int32(index))) }
        }
        order.sort { $0.id < $1.id }
        var writer = ItemJSONWriter()
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
    mutating func item(_ record: ItemRecord, depth: Int) {
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

    /// One item object, from its parts (the keys of ``ItemRecord``).
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
        // Keys in byte order (as `.sortedKeys` orders them); "accessGroup" is always first.
        member("accessGroup", d, first: true); string(a.accessGroup)
        member("accessibility", d); string(accessibility.description)
        member("account", d); string(a.account)
        member("authenticationType", d); string(a.authenticationType)
        member("class", d); string(itemClass.description)
        member("comment", d); string(a.comment)
        member("created", d); optionalString(ItemDates.format(a.creationDate))
        member("creator", d); number(UInt64(a.creator))
        member("description", d); string(a.itemDescription)
        member("generic", d)
        if a.generic.isEmpty { raw("\"\"") } else { string(Data(a.generic).base64EncodedString()) }
        member("id", d); optionalString(id)
        member("invisible", d); bool(a.isInvisible)
        member("label", d); string(a.label)
        member("modified", d); optionalString(ItemDates.format(a.modificationDate))
        member("negative", d); bool(a.isNegative)
        member("path", d); string(a.path)
        member("port", d); number(UInt64(a.port))
        member("preserved", d); preserved(a.preserved, depth: d)
        member("protocol", d); string(a.protocol)
        if let secret { member("secret", d); string(secret) }
        if let secretBase64 { member("secretBase64", d); string(secretBase64) }
        if let secretLength { member("secretLength", d); number(UInt64(secretLength)) }
        member("securityDomain", d); string(a.securityDomain)
        member("server", d); string(a.server)
        member("service", d); string(a.service)
        member("synchronizable", d); bool(a.synchronizable)
        member("type", d); number(UInt64(a.type))
        if let version { member("version", d); number(version) }
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
    mutating func member(_ name: StaticString, _ depth: Int, first: Bool = false) {
        if !first { bytes.append(0x2C) }
        bytes.append(0x0A)
        indent(depth)
        bytes.append(0x22)
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
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
