// vault: encoding and decoding the header.

/// Field types of format v1 (R-FLD table).
enum FieldType {
    static let critical: UInt16 = 0x8000
    static let vaultID: UInt16 = 0x8001
    static let created: UInt16 = 0x8002
    static let generation: UInt16 = 0x8003
    static let keyslot: UInt16 = 0x8004
    static let index: UInt16 = 0x8005
}

extension VaultHeader {
    /// Reads the first 16 bytes and returns the header length (R-HDR-1, R-HDR-2, R-HDR-4).
    ///
    /// - Parameters:
    ///   - preamble: At least the first 16 bytes of the file, or the whole file if shorter.
    ///   - fileLength: The file's length in bytes.
    /// - Throws: `notAVault`, `unsupportedVersion`, `structure` or `truncated`.
    public static func headerLength(preamble: ArraySlice<UInt8>, fileLength: Int) throws(VaultFormatError) -> Int {
        let prefix = preamble.prefix(8)
        guard prefix.elementsEqual(magic.prefix(prefix.count)), !prefix.isEmpty else {
            throw VaultFormatError(.notAVault, "this is not a vault file (wrong magic bytes)")
        }
        guard preamble.count >= preambleByteCount else {
            throw VaultFormatError(.truncated, "the file ends inside the header preamble")
        }
        var r = ByteReader(preamble.prefix(preambleByteCount))
        _ = try r.read(8, "magic")
        let major = try r.u16("major version")
        let minor = try r.u16("minor version")
        guard major == currentMajor || major == version2Major else {
            throw VaultFormatError(
                .unsupportedVersion,
                "this vault uses format version \(major), which needs a newer version of vault",
                formatVersion: FormatVersion(major: major, minor: minor)
            )
        }
        let length = Int(try r.u32("header length"))
        guard length >= preambleByteCount + trailerByteCount, length <= maximumByteCount else {
            throw VaultFormatError(.structure, "header length \(length) is outside 80...\(maximumByteCount)")
        }
        guard length <= fileLength else {
            throw VaultFormatError(.truncated, "the file ends inside the header")
        }
        return length
    }

    /// Decodes a whole header: checksum (R-HDR-5), fields (R-FLD-1 to 6), file length (R-FILE-1).
    ///
    /// The MAC is not checked here; ``VaultSnapshot/unlock(_:headerBytes:with:)`` checks it once a key is known.
    public static func decode(_ bytes: [UInt8], fileLength: Int) throws(VaultFormatError) -> VaultHeader {
        if VaultHead.isFormat3(bytes.prefix(Int(CommitSlot.heapStart))) {
            return try HeaderChunk.decodeHead(bytes, fileLength: fileLength)
        }
        let length = try headerLength(preamble: bytes[...], fileLength: fileLength)
        guard bytes.count == length else { throw VaultFormatError(.truncated, "the header is incomplete") }
        let checksumStart = length - trailerByteCount
        let expected = BLAKE2b.hash(bytes[0..<checksumStart], length: 32)
        guard bytes[checksumStart..<checksumStart + 32].elementsEqual(expected) else {
            throw VaultFormatError(.headerCorrupt, "the header is damaged (checksum mismatch)")
        }
        var r = ByteReader(bytes[8..<checksumStart])
        let major = try r.u16("major")
        let minor = try r.u16("minor")
        _ = try r.u32("header length")
        let fields = try decodeFields(&r, major: major, minor: minor)
        let (keyslots, unknown, recipients, groups) = (
            fields.keyslots, fields.unknown, fields.recipients, fields.groups
        )
        guard let vaultID = fields.vaultID, let created = fields.created, let generation = fields.generation,
            let index = fields.index, !keyslots.isEmpty
        else {
            throw VaultFormatError(.structure, "a required header field is missing")
        }
        guard generation >= 1 else { throw VaultFormatError(.structure, "generation must be at least 1") }
        var ir = ByteReader(index)
        let nonce = Array(try ir.read(24, "index nonce"))
        let recordCount = Int(try ir.u32("record count"))
        let deletionCount = Int(try ir.u32("deletion count"))
        let recordsLength = try ir.u64("records length")
        guard recordCount <= maximumRecordCount, deletionCount <= maximumDeletionCount else {
            throw VaultFormatError(.limit, "the header declares more items or deletion records than allowed")
        }
        guard recordsLength <= UInt64(Int.max / 2) else {
            throw VaultFormatError(.structure, "records length is implausible")
        }
        var header = VaultHeader(
            vaultID: vaultID,
            created: created,
            generation: generation,
            keyslots: keyslots,
            indexNonce: nonce,
            recordCount: recordCount,
            deletionCount: deletionCount,
            recordsLength: Int(recordsLength)
        )
        header.major = major
        header.minor = minor
        header.unknownFields = unknown
        header.recipientStanzas = recipients
        header.accessGroups = groups
        // R2-RCP-1: a limited stanza names a domain of the table.
        for stanza in recipients where stanza.isLimited {
            guard groups.contains(where: { $0.domain == stanza.domain }) else {
                throw VaultFormatError(.structure, "a limited recipient stanza names an access group the header lacks")
            }
        }
        let expectedFileLength = length + header.indexLength + header.recordsLength
        guard fileLength >= expectedFileLength else {
            throw VaultFormatError(
                .truncated,
                "the file is \(expectedFileLength - fileLength) bytes shorter than its header says"
            )
        }
        guard fileLength == expectedFileLength else {
            throw VaultFormatError(.structure, "the file has \(fileLength - expectedFileLength) bytes of trailing data")
        }
        return header
    }

    /// The fields a header holds, as ``decodeFields(_:major:minor:)`` read them.
    struct Fields {
        var vaultID: [UInt8]?
        var created: Int64?
        var generation: UInt64?
        var keyslots: [Keyslot] = []
        var index: ArraySlice<UInt8>?
        var unknown: [UnknownField] = []
        var recipients: [RecipientStanza] = []
        var groups: [AccessGroupEntry] = []
    }

    /// Reads TLV fields to the end of `r`, in file order (R-FLD-1 to R-FLD-4, R-FLD-6's keyslot
    /// count, R12-RCP-1, R2-GRP-1, R2-RCP-1): a file of major 2 or 3 holds recipient stanzas of
    /// both scopes and access-group fields. Required fields are the caller's to check.
    static func decodeFields(_ r: inout ByteReader, major: UInt16, minor: UInt16) throws(VaultFormatError) -> Fields {
        var fields = Fields()
        func once<T>(_ current: T?, _ name: String) throws(VaultFormatError) {
            if current != nil { throw VaultFormatError(.structure, "header field \(name) appears twice") }
        }
        func exact(_ value: ArraySlice<UInt8>, _ size: Int, _ name: String) throws(VaultFormatError) {
            guard value.count == size else {
                throw VaultFormatError(.structure, "header field \(name) has length \(value.count), expected \(size)")
            }
        }
        let groupsAllowed = major >= version2Major
        while !r.isAtEnd {
            let type = try r.u16("field type")
            let fieldLength = Int(try r.u32("field length"))
            let value = try r.read(fieldLength, "header field")
            switch type {
            case FieldType.vaultID:
                try once(fields.vaultID, "vaultID")
                try exact(value, 16, "vaultID")
                fields.vaultID = Array(value)
            case FieldType.created:
                try once(fields.created, "created")
                try exact(value, 8, "created")
                var v = ByteReader(value)
                fields.created = try v.i64("created")
            case FieldType.generation:
                try once(fields.generation, "generation")
                try exact(value, 8, "generation")
                var v = ByteReader(value)
                fields.generation = try v.u64("generation")
            case FieldType.keyslot:
                guard fields.keyslots.count < Keyslot.maximumCount else {
                    throw VaultFormatError(.limit, "more than \(Keyslot.maximumCount) keyslots")
                }
                fields.keyslots.append(try Keyslot.decode(value))
            case FieldType.index:
                try once(fields.index, "index")
                try exact(value, 40, "index")
                fields.index = value
            case RecipientStanza.fieldType where (major == 1 && minor >= 2) || groupsAllowed:
                // Format 1.2 (R12-RCP-1); in a file of a lower minor the type is unknown (R-FLD-3).
                guard fields.recipients.count < RecipientStanza.maximumCount else {
                    throw VaultFormatError(.limit, "more than \(RecipientStanza.maximumCount) recipient stanzas")
                }
                fields.recipients.append(try RecipientStanza.decode(value, allowingLimited: groupsAllowed))
            case AccessGroupEntry.fieldType where groupsAllowed:
                // Format 2.0 (R2-GRP-1): domains strictly ascending, so each appears once.
                guard fields.groups.count < AccessGroupEntry.maximumCount else {
                    throw VaultFormatError(.limit, "more than \(AccessGroupEntry.maximumCount) access groups")
                }
                let group = try AccessGroupEntry.decode(value)
                if let last = fields.groups.last, group.domain <= last.domain {
                    throw VaultFormatError(.structure, "access-group domains are not strictly ascending")
                }
                fields.groups.append(group)
            default:
                guard type & FieldType.critical == 0 else {
                    throw VaultFormatError(
                        .unsupportedFeature,
                        "this vault uses a feature (header field 0x\(String(type, radix: 16))) that needs a newer version of vault"
                    )
                }
                fields.unknown.append(UnknownField(type: type, value: Array(value)))
            }
        }
        return fields
    }

    /// Encodes the header with its checksum and MAC.
    ///
    /// - Parameter headerKey: `HK`, derived from the base key.
    func encode(headerKey: some ReadableBytes) -> [UInt8] {
        var w = ByteWriter(capacity: 512)
        w.append(Self.magic)
        w.u16(major)
        w.u16(minor)
        w.u32(0)  // patched below
        func field(_ type: UInt16, _ value: [UInt8]) {
            w.u16(type)
            w.u32(UInt32(value.count))
            w.append(value)
        }
        field(FieldType.vaultID, vaultID)
        var v = ByteWriter()
        v.i64(created)
        field(FieldType.created, v.bytes)
        v = ByteWriter()
        v.u64(generation)
        field(FieldType.generation, v.bytes)
        for slot in keyslots { field(FieldType.keyslot, slot.encoded) }
        v = ByteWriter()
        v.append(indexNonce)
        v.u32(UInt32(recordCount))
        v.u32(UInt32(deletionCount))
        v.u64(UInt64(recordsLength))
        field(FieldType.index, v.bytes)
        for stanza in recipientStanzas { field(RecipientStanza.fieldType, stanza.encoded) }
        for group in accessGroups { field(AccessGroupEntry.fieldType, group.encoded) }
        for extra in unknownFields { field(extra.type, extra.value) }
        let length = w.bytes.count + Self.trailerByteCount
        for shift in 0..<4 { w.bytes[12 + shift] = UInt8(truncatingIfNeeded: length >> (8 * shift)) }
        w.append(BLAKE2b.hash(w.bytes, length: 32))
        w.append(BLAKE2b.hash(w.bytes, key: headerKey, length: 32))
        return w.bytes
    }
}
