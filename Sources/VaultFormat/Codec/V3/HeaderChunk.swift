// vault: the format-3 header chunk: the TLV fields of format 2.0 without generation and index.

/// The header chunk of a format-3 file (Spec/format-v3.md §5, R3-HDR-1; design draft).
enum HeaderChunk {
    /// The header chunk's fields: vault ID, creation time, keyslots, recipient stanzas,
    /// access-group fields, then the unknown fields in their order (R-FLD-7).
    static func encode(_ header: VaultHeader) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        func field(_ type: UInt16, _ value: [UInt8]) {
            writer.u16(type)
            writer.u32(UInt32(value.count))
            writer.append(value)
        }
        field(FieldType.vaultID, header.vaultID)
        var created = ByteWriter()
        created.i64(header.created)
        field(FieldType.created, created.bytes)
        for slot in header.keyslots { field(FieldType.keyslot, slot.encoded) }
        for stanza in header.recipientStanzas { field(RecipientStanza.fieldType, stanza.encoded) }
        for group in header.accessGroups { field(AccessGroupEntry.fieldType, group.encoded) }
        for extra in header.unknownFields { field(extra.type, extra.value) }
        return writer.bytes
    }

    /// The header of a format-3 head (``VaultHead``): the current slot's 512 bytes, well-formed
    /// where they stand (R3-SLT-2), then the header chunk its reference names (R3-FILE-1).
    ///
    /// Which slot is current, and whether its commit is complete, the head's reader decided
    /// (R3-SLT-3, R3-SLT-4); the MAC is checked once a key is known (R3-SLT-5).
    static func decodeHead(_ bytes: [UInt8], fileLength: Int) throws(VaultFormatError) -> VaultHeader {
        let slotBytes = bytes.prefix(CommitSlot.byteCount)
        guard slotBytes.count == CommitSlot.byteCount else {
            throw VaultFormatError(.truncated, "the file ends inside its commit slots")
        }
        guard case .wellFormed(let slot, _) = CommitSlot.read(slotBytes, at: Int(bytes[CommitSlot.indexOffset]))
        else { throw VaultFormatError(.headerCorrupt, "the commit slot is damaged") }
        guard slot.committedLength <= UInt64(fileLength) else {
            throw VaultFormatError(.truncated, "the file ends before its last commit")
        }
        let chunk = Array(bytes.dropFirst(CommitSlot.byteCount))
        guard chunk.count == Int(slot.header.length), slot.header.offset >= CommitSlot.heapStart,
            slot.header.offset + UInt64(slot.header.length) <= slot.committedLength
        else { throw VaultFormatError(.structure, "the header chunk lies outside the committed heap") }
        guard SecretMemory.equal(BLAKE2b.hash(chunk, length: 32), slot.header.hash) else {
            throw VaultFormatError(.headerCorrupt, "the header chunk does not match its hash")
        }
        var header = try decode(chunk, slot: slot)
        header.commit = slot
        return header
    }

    /// The header a format-3 slot and its header chunk describe: major 3, the slot's minor and
    /// generation (R3-HDR-1, with the field rules of format 2.0).
    static func decode(_ bytes: [UInt8], slot: CommitSlot) throws(VaultFormatError) -> VaultHeader {
        guard bytes.count <= VaultHeader.maximumByteCount else {
            throw VaultFormatError(.structure, "the header chunk is larger than 1 MiB")
        }
        var reader = ByteReader(bytes)
        let fields = try VaultHeader.decodeFields(&reader, major: CommitSlot.major, minor: slot.minor)
        guard fields.generation == nil, fields.index == nil else {
            throw VaultFormatError(.structure, "a format-3 header chunk holds a generation or index field")
        }
        guard let vaultID = fields.vaultID, let created = fields.created,
            !(fields.keyslots.isEmpty && fields.recipients.isEmpty)
        else { throw VaultFormatError(.structure, "a required header field is missing") }
        for stanza in fields.recipients where stanza.isLimited {
            guard fields.groups.contains(where: { $0.domain == stanza.domain }) else {
                throw VaultFormatError(.structure, "a limited recipient stanza names an access group the header lacks")
            }
        }
        var header = VaultHeader(
            vaultID: vaultID,
            created: created,
            generation: slot.generation,
            keyslots: fields.keyslots
        )
        header.major = CommitSlot.major
        header.minor = slot.minor
        header.unknownFields = fields.unknown
        header.recipientStanzas = fields.recipients
        header.accessGroups = fields.groups
        return header
    }
}
