// vault: a vault file taken apart and written again with a key holder's keys (harnesses only).

/// A vault file as a holder of the header and index keys sees it, taken apart so that a harness
/// can change it and write a file that the header MAC and the index AEAD accept.
///
/// A holder of `BK` alone (a base-scope keyslot) and a recipient limited to one access group
/// both hold `HK` and `IK`, so both can write such a file (Spec/threat-model.md §3.13.1, "Who can
/// write what"). This type plays them: the reliability tamper suite's key-holder pass
/// (`Reliability/`, through `_VaultHooks`), the damage fixtures of `Fixtures/v2-damage` and the
/// attack tests. No writer of vault uses it, and it applies no rule of the format: header fields
/// are raw TLVs in file order (a harness may damage, repeat, drop or reorder them), and index
/// entries, records and deletion records are written as given, in the order given.
///
/// ``encode(random:)`` recomputes what a key holder recomputes: the value of the first `index`
/// field (a fresh nonce, the counts, the records length), the header length, the checksum, the
/// MAC under `HK` and the index under `IK`, with ``keys``.
package struct KeyHolderRewrite: Sendable {
    /// One header field, as stored: its type, critical bit included, and its value. The raw
    /// type-and-value pair a header keeps for a field it does not know serves every field here.
    package typealias Field = VaultHeader.UnknownField

    /// The major version written in the preamble; 40-byte index entries (with the key domain)
    /// from major 2 on.
    package var major: UInt16
    /// The minor version written in the preamble.
    package var minor: UInt16
    /// Every header field, in file order, the `index` field included.
    package var fields: [Field]
    /// The items: index entries and record bytes, in index order.
    package var records: [SealedRecord]
    /// The deletion records, in index order.
    package var deletions: [DeletionRecord]
    /// The keys the header MAC, the index and any record sealed with ``seal(_:domain:random:)`` use.
    package var keys: VaultKeys

    /// Takes `file` apart with `keys`, which must open it: the header MAC is verified and the
    /// index decrypted (a holder of `MK` also reads the access-group fields, R2-GRP-2).
    ///
    /// - Throws: The ``VaultFormatError`` of an open with `keys`.
    package init(_ file: [UInt8], keys: VaultKeys) throws {
        let length = try VaultHeader.headerLength(preamble: file.prefix(16), fileLength: file.count)
        let snapshot = try VaultSnapshot.open(
            headerBytes: Array(file[0..<length]),
            fileLength: file.count,
            source: InMemoryFile(file),
            keys: keys,
            openedKeyslot: 0
        )
        major = snapshot.header.major
        minor = snapshot.header.minor
        fields = Field.parse(Array(file[VaultHeader.preambleByteCount..<length - VaultHeader.trailerByteCount]))
        records = []
        let index = try snapshot.index
        for position in 0..<index.count {
            let bytes = Array(try snapshot.recordBytes(at: position))
            records.append(SealedRecord(entry: index.entry(at: position), bytes: bytes))
        }
        deletions = index.deletions
        self.keys = keys
    }

    /// The keys of a holder of `BK` alone (a base-scope keyslot) of the vault `keys` open:
    /// `HK`, `IK`, `LK` and the `always` classes of domain 0, no `MK`. `nil` for keys without `BK`
    /// (a limited recipient's).
    package static func baseKeyHolder(of keys: VaultKeys, vaultID: [UInt8]) -> VaultKeys? {
        keys.base.map { VaultKeys(master: nil, base: $0, deviceSecret: keys.deviceSecret, vaultID: vaultID) }
    }

    /// The vault ID, from the first `vaultID` field.
    package var vaultID: [UInt8] { value(ofFirst: FieldType.vaultID) }

    private func value(ofFirst type: UInt16) -> [UInt8] {
        guard let field = fields.first(where: { $0.type == type }) else { return [] }
        return field.value
    }

    /// The generation, read from and written to the first `generation` field.
    package var generation: UInt64 {
        get {
            let value = value(ofFirst: FieldType.generation)
            return value.count == 8 ? value.reversed().reduce(0) { $0 << 8 | UInt64($1) } : 0
        }
        set {
            guard let at = fields.firstIndex(where: { $0.type == FieldType.generation }) else { return }
            fields[at].value = (0..<8).map { UInt8(truncatingIfNeeded: newValue >> (8 * $0)) }
        }
    }

    /// Seals `draft` with ``keys`` in key domain `domain` at version ``generation``, as its holder
    /// can: domain 0's `always` classes with `BK`, every class of its own domain for a limited
    /// recipient (R2-KEY-1).
    ///
    /// - Throws: `keyUnavailable` when ``keys`` do not reach the class in that domain.
    package func seal(_ draft: ItemDraft, domain: UInt8, random: some RandomSource) throws(VaultFormatError)
        -> SealedRecord
    {
        try RecordCodec.seal(draft, version: generation, vaultID: vaultID, keys: keys, domain: domain, random: random)
    }

    /// Puts `record` in index order (by lookup tag, then item ID), replacing a record of the
    /// same item ID.
    package mutating func insert(_ record: SealedRecord) {
        records.removeAll { $0.entry.itemID == record.entry.itemID }
        let at = records.firstIndex { record.entry.sortsBefore($0.entry) } ?? records.count
        records.insert(record, at: at)
    }

    /// A recipient stanza that wraps `payload` to `recipient`: a full one (scope 0, `payload` is
    /// `MK`) when `domain` is `nil`, else a limited one (scope 2) of `domain` (`payload` is
    /// `HK || IK || LK || GK`).
    ///
    /// Its info is `info` (the 97-byte plaintext `R || LE8(n) || name || padding`) sealed under
    /// `RIK` of `infoKeys`, which must hold `MK`; without `infoKeys`, random bytes that open for
    /// nobody, which is all a holder without `MK` can write (R12-RCP-4). A holder of `MK` can so
    /// write a stanza whose info names another key than the one it opens for (R12-RCP-7); a
    /// limited recipient can wrap its own keys to a key of its choosing (R2-RCP-4).
    package static func stanza(
        wrapping payload: SecretBytes,
        to recipient: RecipientKey,
        domain: UInt8? = nil,
        info: [UInt8]? = nil,
        infoKeys: VaultKeys? = nil,
        vaultID: [UInt8],
        random: some RandomSource
    ) -> [UInt8] {
        let ephemeral = SecretBytes(count: X25519.keyByteCount, protection: .guarded) { random.fill($0) }
        let ephemeralKey = X25519.publicKey(of: ephemeral)
        var stanza = RecipientStanza(
            scope: domain == nil ? 0 : RecipientStanza.limitedScope,
            domain: domain ?? 0,
            ephemeralKey: ephemeralKey,
            nonce: random.bytes(XChaCha20Poly1305.nonceByteCount),
            wrapped: [],
            infoNonce: random.bytes(XChaCha20Poly1305.nonceByteCount),
            info: []
        )
        let shared = X25519.sharedSecret(ephemeral, recipient.bytes)!
        let kek = KeyHierarchy.recipientKEK(shared: shared, ephemeralKey: ephemeralKey, recipientKey: recipient.bytes)
        stanza.wrapped = XChaCha20Poly1305.seal(
            payload,
            using: kek,
            nonce: stanza.nonce,
            authenticating: KeyHierarchy.recipientAssociatedData(stanza, vaultID: vaultID)
        )
        if let info, let master = infoKeys?.master {
            stanza.info = XChaCha20Poly1305.seal(
                info,
                using: KeyHierarchy.recipientInfoKey(master),
                nonce: stanza.infoNonce,
                authenticating: KeyHierarchy.recipientInfoAssociatedData(stanza, vaultID: vaultID)
            )
        } else {
            stanza.info = random.bytes(RecipientStanza.infoPlaintextByteCount + XChaCha20Poly1305.tagByteCount)
        }
        return stanza.encoded
    }

    /// The plaintext of a stanza's info naming `key` and `name` (R12-RCP-1).
    package static func stanzaInfo(naming key: RecipientKey, name: String) -> [UInt8] {
        key.bytes + PaddedName.encode(name)
    }

    /// The master key of `keys`, as the payload of a full stanza; `nil` without it.
    package static func masterKeyPayload(of keys: VaultKeys) -> SecretBytes? { keys.master?.secret }

    /// The value of an access-group field naming `name` in `domain`, sealed by the holder of `MK`
    /// that `ownerKeys` hold (for a field of another copy of the vault, which a key holder may
    /// splice in).
    ///
    /// - Throws: `keyUnavailable` without `MK`; `invalidParameter` for a name a writer refuses.
    package static func accessGroupField(
        name: String,
        domain: UInt8,
        ownerKeys: VaultKeys,
        vaultID: [UInt8],
        random: some RandomSource
    ) throws(VaultFormatError) -> [UInt8] {
        guard let master = ownerKeys.master else {
            throw VaultFormatError(.keyUnavailable, "an access-group field is sealed with the master key")
        }
        return try KeyHierarchy.makeAccessGroupEntry(
            name: name,
            domain: domain,
            master: master,
            vaultID: vaultID,
            random: random
        ).encoded
    }

    /// The value of an access-group field of `domain` whose sealed name is `plaintext` (65 bytes
    /// for a well-formed one, `LE8(n) || name || padding`), sealed under `GNK` of `ownerKeys`,
    /// which must hold `MK`: a field that opens but need not be well formed (R2-GRP-2).
    package static func accessGroupField(
        sealing plaintext: [UInt8],
        domain: UInt8,
        ownerKeys: VaultKeys,
        vaultID: [UInt8],
        random: some RandomSource
    ) -> [UInt8] {
        let nonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        let sealed = XChaCha20Poly1305.seal(
            plaintext,
            using: KeyHierarchy.groupNameKey(ownerKeys.master!),
            nonce: nonce,
            authenticating: KeyHierarchy.groupAssociatedData(domain: domain, vaultID: vaultID)
        )
        return [domain] + nonce + sealed
    }

    /// What a stanza field `value` wraps for `identity` (`MK`, or a limited stanza's 128 bytes),
    /// or `nil` when it does not decode or does not open for it.
    package static func unwrap(stanza value: [UInt8], identity: RecipientIdentity, vaultID: [UInt8]) -> SecretBytes? {
        guard let stanza = try? RecipientStanza.decode(value[...], allowingLimited: true) else { return nil }
        return KeyHierarchy.unwrapRecipientStanza(stanza, identity: identity, vaultID: vaultID)
    }

    /// The file: header with its checksum and a MAC under ``keys``' `HK`, the index sealed under
    /// their `IK` with a fresh nonce from `random`, then the records.
    package func encode(random: some RandomSource) -> [UInt8] {
        let nonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        let withDomain = major >= VaultHeader.version2Major
        let recordsLength = records.reduce(0) { $0 + $1.bytes.count }
        var w = ByteWriter(capacity: 1024)
        w.append(VaultHeader.magic)
        w.u16(major)
        w.u16(minor)
        w.u32(0)  // patched below
        var indexDone = false
        for field in fields {
            var value = field.value
            if field.type == FieldType.index && !indexDone {
                var v = ByteWriter()
                v.append(nonce)
                v.u32(UInt32(records.count))
                v.u32(UInt32(deletions.count))
                v.u64(UInt64(recordsLength))
                value = v.bytes
                indexDone = true
            }
            w.u16(field.type)
            w.u32(UInt32(value.count))
            w.append(value)
        }
        let length = w.bytes.count + VaultHeader.trailerByteCount
        for shift in 0..<4 { w.bytes[12 + shift] = UInt8(truncatingIfNeeded: length >> (8 * shift)) }
        w.append(BLAKE2b.hash(w.bytes, length: 32))
        w.append(BLAKE2b.hash(w.bytes, key: keys.headerKey, length: 32))
        let headerBytes = w.bytes
        var rows = [UInt8]()
        for record in records { VaultIndex.appendRow(record.entry, withDomain: withDomain, to: &rows) }
        let index = VaultIndex.seal(
            entries: &rows,
            deletions: deletions,
            headerBytes: headerBytes,
            nonce: nonce,
            keys: keys
        )
        return headerBytes + index + records.flatMap(\.bytes)
    }
}
