// VaultImport tests: the hand-written layout writer gives JSONEncoder's bytes.

import Foundation
import Testing
import VaultIO

@testable import VaultImport

@Suite("GenericJSONWriter")
struct GenericJSONWriterTests {
    /// JSONEncoder's text of `value`, as `vaulttool` prints JSON.
    private func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    private func item(secret: [UInt8]?) -> GenericJSONLayout.Item {
        var a = ItemAttributes(service: "db \"prod\"/main", account: "app\u{1}\n")
        a.label = "é 日本 \u{7F}"
        a.generic = [0, 1, 2]
        a.creationDate = 1_767_225_600_123
        a.server = "example.com"
        a.port = 8443
        a.preserved = [PreservedAttribute(tag: 200, value: [9, 8])]
        var item = GenericJSONLayout.Item(
            id: "0123",
            itemClass: .internetPassword,
            accessibility: .afterFirstUnlock,
            attributes: a
        )
        item.version = 7
        if let secret { item.setSecret(secret) }
        return item
    }

    @Test func item_isByteForByteJSONEncoders() throws {
        for secret in [nil, Array("s3cr3t".utf8), [0xFF, 0x00]] {
            var writer = GenericJSONWriter(capacity: 0)
            writer.item(item(secret: secret), depth: 0)
            let expected = try encoded(item(secret: secret))
            #expect(writer.bytes == expected)
        }
    }

    @Test func listReport_withoutItems_isJSONEncodersEmptyArray() {
        var output: [UInt8] = []
        GenericJSONWriter.writeListReport([], unavailable: 2) { output += $0 }
        #expect(String(decoding: output, as: UTF8.self) == "{\n  \"items\" : [\n\n  ],\n  \"unavailable\" : 2\n}\n")
    }
}
