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
