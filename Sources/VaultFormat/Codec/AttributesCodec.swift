// vault: the attribute encoding inside an item's attribute ciphertext.

/// Encodes and decodes ``ItemAttributes`` as tag-length-value (tag `u8`, LEB128 length).
///
/// Spec: Spec/format-v1.md, "Attributes" (R-ATT-1 to R-ATT-3).
package enum AttributesCodec {
    /// Maximum UTF-8 bytes of one string attribute.
    static let maximumStringByteCount = 4096
    /// Maximum bytes of `generic`.
    static let maximumGenericByteCount = 32_768
    /// Maximum encoded attributes.
    static let maximumEncodedByteCount = 65_535

    enum Tag: UInt8 {
        case service = 1, account, accessGroup, label, comment, description, creator, type, generic
        case creationDate, modificationDate, synchronizable, server, `protocol`, authenticationType, port
        case path, securityDomain, isInvisible, isNegative
    }

    /// Encodes `attributes` for `itemClass`.
    ///
    /// - Throws: `limit` when a value is too long, `invalidParameter` when a generic
    ///   password carries internet fields.
    package static func encode(_ a: ItemAttributes, itemClass: ItemClass) throws(VaultFormatError) -> [UInt8] {
        if itemClass == .genericPassword && a.hasInternetFields {
            throw VaultFormatError(.invalidParameter, "a generic password cannot have internet-password attributes")
        }
        var w = ByteWriter(capacity: 64)
        func string(_ tag: Tag, _ value: String, _ name: String) throws(VaultFormatError) {
            guard !value.isEmpty else { return }
            let utf8 = value.utf8
            guard utf8.count <= maximumStringByteCount else {
                throw VaultFormatError(.limit, "attribute \(name) is longer than \(maximumStringByteCount) bytes")
            }
            w.u8(tag.rawValue)
            w.varint(utf8.count)
            w.append(utf8)
        }
        func fixed(_ tag: Tag, _ value: UInt64, _ size: Int) {
            guard value != 0 else { return }
            w.u8(tag.rawValue)
            w.varint(size)
            for shift in 0..<size { w.u8(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
        }
        try string(.service, a.service, "service")
        try string(.account, a.account, "account")
        try string(.accessGroup, a.accessGroup, "accessGroup")
        try string(.label, a.label, "label")
        try string(.comment, a.comment, "comment")
        try string(.description, a.itemDescription, "description")
        fixed(.creator, UInt64(a.creator), 4)
        fixed(.type, UInt64(a.type), 4)
        if !a.generic.isEmpty {
            guard a.generic.count <= maximumGenericByteCount else {
                throw VaultFormatError(.limit, "attribute generic is longer than \(maximumGenericByteCount) bytes")
            }
            w.u8(Tag.generic.rawValue)
            w.varint(a.generic.count)
            w.append(a.generic)
        }
        fixed(.creationDate, UInt64(bitPattern: a.creationDate), 8)
        fixed(.modificationDate, UInt64(bitPattern: a.modificationDate), 8)
        fixed(.synchronizable, a.synchronizable ? 1 : 0, 1)
        try string(.server, a.server, "server")
        try string(.protocol, a.protocol, "protocol")
        try string(.authenticationType, a.authenticationType, "authenticationType")
        fixed(.port, UInt64(a.port), 2)
        try string(.path, a.path, "path")
        try string(.securityDomain, a.securityDomain, "securityDomain")
        fixed(.isInvisible, a.isInvisible ? 1 : 0, 1)
        fixed(.isNegative, a.isNegative ? 1 : 0, 1)
        var lastTag: UInt8 = 63
        for extra in a.preserved {
            guard extra.tag > lastTag else {
                throw VaultFormatError(.invalidParameter, "preserved attribute tags must be ascending and at least 64")
            }
            guard extra.value.count < 1 << 21 else { throw VaultFormatError(.limit, "preserved attribute too long") }
            lastTag = extra.tag
            w.u8(extra.tag)
            w.varint(extra.value.count)
            w.append(extra.value)
        }
        guard w.bytes.count <= maximumEncodedByteCount else {
            throw VaultFormatError(.limit, "attributes exceed \(maximumEncodedByteCount) bytes when encoded")
        }
        return w.bytes
    }

    /// `bytes` as a string, or `nil` when they are not valid UTF-8 (R-ATT-4).
    ///
    /// ASCII, the common case, is always valid UTF-8 and takes the decoder's fast path; anything
    /// else is validated in full.
    static func validatedString(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            if buffer.allSatisfy({ $0 < 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
            return String(validating: buffer, as: UTF8.self)
        }
    }

    /// Decodes attributes; any rule broken is `recordCorrupt`.
    package static func decode(_ bytes: ArraySlice<UInt8>, itemClass: ItemClass) throws(VaultFormatError)
        -> ItemAttributes
    {
        var r = ByteReader(bytes, failure: .recordCorrupt)
        var a = ItemAttributes()
        var previous = 0
        while !r.isAtEnd {
            let rawTag = try r.u8("attribute tag")
            guard Int(rawTag) > previous else {
                throw VaultFormatError(.recordCorrupt, "attribute tags are out of order or repeated")
            }
            previous = Int(rawTag)
            let length = try r.varint("attribute length")
            let value = try r.read(length, "attribute value")
            guard let tag = Tag(rawValue: rawTag) else {
                guard rawTag >= 64 else {
                    throw VaultFormatError(.recordCorrupt, "unknown critical attribute \(rawTag)")
                }
                a.preserved.append(PreservedAttribute(tag: rawTag, value: Array(value)))
                continue
            }
            func string(_ limit: Int = maximumStringByteCount) throws(VaultFormatError) -> String {
                guard !value.isEmpty, value.count <= limit, let text = Self.validatedString(value) else {
                    throw VaultFormatError(.recordCorrupt, "attribute \(tag) is not valid non-empty UTF-8")
                }
                return text
            }
            func number(_ size: Int) throws(VaultFormatError) -> UInt64 {
                guard value.count == size else {
                    throw VaultFormatError(.recordCorrupt, "attribute \(tag) must be \(size) bytes")
                }
                var n: UInt64 = 0
                for (shift, byte) in value.enumerated() { n |= UInt64(byte) << (8 * shift) }
                guard n != 0 else { throw VaultFormatError(.recordCorrupt, "attribute \(tag) stores its default") }
                return n
            }
            func flag() throws(VaultFormatError) -> Bool {
                guard try number(1) == 1 else { throw VaultFormatError(.recordCorrupt, "attribute \(tag) must be 1") }
                return true
            }
            switch tag {
            case .service: a.service = try string()
            case .account: a.account = try string()
            case .accessGroup: a.accessGroup = try string()
            case .label: a.label = try string()
            case .comment: a.comment = try string()
            case .description: a.itemDescription = try string()
            case .creator: a.creator = UInt32(try number(4))
            case .type: a.type = UInt32(try number(4))
            case .generic:
                guard !value.isEmpty, value.count <= maximumGenericByteCount else {
                    throw VaultFormatError(.recordCorrupt, "attribute generic has a bad length")
                }
                a.generic = Array(value)
            case .creationDate: a.creationDate = Int64(bitPattern: try number(8))
            case .modificationDate: a.modificationDate = Int64(bitPattern: try number(8))
            case .synchronizable: a.synchronizable = try flag()
            case .server: a.server = try string()
            case .protocol: a.protocol = try string()
            case .authenticationType: a.authenticationType = try string()
            case .port: a.port = UInt16(try number(2))
            case .path: a.path = try string()
            case .securityDomain: a.securityDomain = try string()
            case .isInvisible: a.isInvisible = try flag()
            case .isNegative: a.isNegative = try flag()
            }
        }
        if itemClass == .genericPassword && a.hasInternetFields {
            throw VaultFormatError(.recordCorrupt, "a generic password carries internet-password attributes")
        }
        return a
    }
}
