// vault: the attribute encoding (Spec section 7.2, R-ATT-1 to R-ATT-5).

import Testing

@testable import VaultFormat

@Suite("Attributes codec")
struct AttributesCodecTests {
    private static var everyInternetField: ItemAttributes {
        var a = ItemAttributes(service: "mail", account: "alice@example.com")
        a.accessGroup = "group.example"
        a.label = "Mail – work 📬"
        a.comment = "commentaire"
        a.itemDescription = "Ключ"
        a.creator = 0x6170_706C
        a.type = 0xFFFF_FFFF
        a.generic = [0, 1, 2, 255]
        a.creationDate = -1
        a.modificationDate = 1_700_000_000_000
        a.synchronizable = true
        a.server = "imap.example.com"
        a.protocol = "imaps"
        a.authenticationType = "default"
        a.port = 993
        a.path = "/inbox"
        a.securityDomain = "例え"
        a.isInvisible = true
        a.isNegative = true
        a.preserved = [PreservedAttribute(tag: 64, value: [1]), PreservedAttribute(tag: 255, value: [])]
        return a
    }

    private func decode(_ bytes: [UInt8], _ itemClass: ItemClass = .internetPassword) throws -> ItemAttributes {
        try AttributesCodec.decode(bytes[...], itemClass: itemClass)
    }

    private func expectCorrupt(_ bytes: [UInt8], _ itemClass: ItemClass = .internetPassword) {
        #expect(throws: VaultFormatError(.recordCorrupt)) { try decode(bytes, itemClass) }
    }

    @Test func encode_roundTripsEveryField() throws {
        let attributes = Self.everyInternetField
        let bytes = try AttributesCodec.encode(attributes, itemClass: .internetPassword)
        #expect(try decode(bytes) == attributes)
    }

    @Test func encode_roundTripsEachFieldAlone() throws {
        let full = Self.everyInternetField
        let paths: [PartialKeyPath<ItemAttributes>] = [
            \.service, \.account, \.accessGroup, \.label, \.comment, \.itemDescription, \.creator, \.type,
            \.generic, \.creationDate, \.modificationDate, \.synchronizable, \.server, \.protocol,
            \.authenticationType, \.port, \.path, \.securityDomain, \.isInvisible, \.isNegative, \.preserved,
        ]
        for path in paths {
            var one = ItemAttributes()
            func copy<T>(_ keyPath: WritableKeyPath<ItemAttributes, T>) {
                one[keyPath: keyPath] = full[keyPath: keyPath]
            }
            switch path {
            case let p as WritableKeyPath<ItemAttributes, String>: copy(p)
            case let p as WritableKeyPath<ItemAttributes, UInt32>: copy(p)
            case let p as WritableKeyPath<ItemAttributes, Int64>: copy(p)
            case let p as WritableKeyPath<ItemAttributes, Bool>: copy(p)
            case let p as WritableKeyPath<ItemAttributes, UInt16>: copy(p)
            case let p as WritableKeyPath<ItemAttributes, [UInt8]>: copy(p)
            case let p as WritableKeyPath<ItemAttributes, [PreservedAttribute]>: copy(p)
            default: Issue.record("unhandled key path \(path)")
            }
            #expect(one != ItemAttributes(), "\(path)")
            #expect(try decode(AttributesCodec.encode(one, itemClass: .internetPassword)) == one, "\(path)")
        }
    }

    // R-ATT-4, R-ATT-5: defaults are not written, so empty attributes encode to nothing.
    @Test func encode_ofDefaults_isEmpty() throws {
        #expect(try AttributesCodec.encode(ItemAttributes(), itemClass: .genericPassword) == [])
        #expect(try decode([], .genericPassword) == ItemAttributes())
    }

    // R-ATT-5: tags ascending, each at most once, lengths as minimal varints.
    @Test func encode_writesAscendingTags() throws {
        let bytes = try AttributesCodec.encode(Self.everyInternetField, itemClass: .internetPassword)
        var reader = ByteReader(bytes)
        var tags: [UInt8] = []
        while !reader.isAtEnd {
            tags.append(try reader.u8("tag"))
            _ = try reader.read(try reader.varint("length"), "value")
        }
        #expect(tags == Array(1...20) + [64, 255])
    }

    // R-ATT-1
    @Test func decode_withTagsOutOfOrder_throwsRecordCorrupt() {
        expectCorrupt([2, 1, 0x61, 1, 1, 0x62])
        expectCorrupt([0, 1, 0x61])  // tag 0 sorts before every tag
    }

    // R-ATT-1
    @Test func decode_withDuplicateTag_throwsRecordCorrupt() {
        expectCorrupt([1, 1, 0x61, 1, 1, 0x62])
        expectCorrupt([64, 0, 64, 0])
    }

    // R-ATT-1
    @Test(
        arguments: [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x61, 0xE2, 0x82]] as [[UInt8]]
    )
    func decode_withInvalidUTF8_throwsRecordCorrupt(value: [UInt8]) {
        expectCorrupt([1, UInt8(value.count)] + value)
        expectCorrupt([13, UInt8(value.count)] + value)
    }

    // R-ATT-4: a stored default value (and a flag other than 1) is refused.
    @Test(
        arguments: [
            [1, 0], [4, 0], [7, 4, 0, 0, 0, 0], [9, 0], [10, 8, 0, 0, 0, 0, 0, 0, 0, 0], [12, 1, 0], [13, 0],
            [16, 2, 0, 0], [19, 1, 0], [20, 1, 0],
        ] as [[UInt8]]
    )
    func decode_withStoredDefault_throwsRecordCorrupt(bytes: [UInt8]) {
        expectCorrupt(bytes)
    }

    // R-ATT-1: a fixed-size value of the wrong length, a flag other than 1, a value that overruns.
    @Test(
        arguments: [
            [7, 3, 1, 2, 3], [7, 5, 1, 2, 3, 4, 5], [10, 4, 1, 2, 3, 4], [16, 1, 80], [12, 1, 2], [19, 2, 1, 0],
            [1, 5, 0x61], [1], [1, 0x80], [1, 0x81, 0x00, 0x61],
        ] as [[UInt8]]
    )
    func decode_withMalformedValue_throwsRecordCorrupt(bytes: [UInt8]) {
        expectCorrupt(bytes)
    }

    // R-ATT-3
    @Test(
        arguments: [[13, 1, 0x78], [14, 1, 0x78], [15, 1, 0x78], [16, 2, 1, 0], [17, 1, 0x2F], [18, 1, 0x78]]
            as [[UInt8]]
    )
    func decode_internetFieldOnGenericPassword_throwsRecordCorrupt(bytes: [UInt8]) throws {
        expectCorrupt(bytes, .genericPassword)
        _ = try decode(bytes, .internetPassword)
    }

    // R-ATT-3
    @Test func encode_internetFieldOnGenericPassword_throwsInvalidParameter() {
        var a = ItemAttributes(service: "s")
        a.port = 443
        #expect(throws: VaultFormatError(.invalidParameter)) {
            try AttributesCodec.encode(a, itemClass: .genericPassword)
        }
    }

    // R-ATT-2
    @Test(arguments: [UInt8(21), 22, 50, 63])
    func decode_withUnknownTagBelow64_throwsRecordCorrupt(tag: UInt8) {
        expectCorrupt([tag, 1, 0])
        expectCorrupt([1, 1, 0x61, tag, 0])
    }

    // R-ATT-2: unknown tags of 64 and above are kept, and encoded again unchanged.
    @Test func decode_withUnknownTagsFrom64_preservesThem() throws {
        let bytes: [UInt8] = [1, 1, 0x61, 64, 2, 9, 9, 100, 0, 255, 3, 1, 2, 3]
        let attributes = try decode(bytes, .genericPassword)
        #expect(attributes.service == "a")
        #expect(
            attributes.preserved == [
                PreservedAttribute(tag: 64, value: [9, 9]), PreservedAttribute(tag: 100, value: []),
                PreservedAttribute(tag: 255, value: [1, 2, 3]),
            ]
        )
        #expect(try AttributesCodec.encode(attributes, itemClass: .genericPassword) == bytes)
    }

    // R-ATT-4, R-LIM-1: a writer refuses values over the limits (`limit`); a reader refuses them (`recordCorrupt`).
    @Test func encodeAndDecode_enforceLengthLimits() throws {
        var a = ItemAttributes(service: String(repeating: "é", count: 2048))  // 4096 bytes: allowed
        #expect(try decode(AttributesCodec.encode(a, itemClass: .genericPassword), .genericPassword) == a)
        a.service += "x"
        #expect(throws: VaultFormatError(.limit)) { try AttributesCodec.encode(a, itemClass: .genericPassword) }
        var g = ItemAttributes()
        g.generic = [UInt8](repeating: 1, count: 32_769)
        #expect(throws: VaultFormatError(.limit)) { try AttributesCodec.encode(g, itemClass: .genericPassword) }
        expectCorrupt([1, 0x81, 0x20] + [UInt8](repeating: 0x61, count: 4097))
    }
}
