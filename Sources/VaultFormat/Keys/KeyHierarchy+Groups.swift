// vault: access-group keys and limited recipient stanzas (format 2.0).

extension KeyHierarchy {
    /// `GK(d, name) = BLAKE2b(32, key = Derive(MK, 256 + d, "VLTgroup"), "VLT2gkey" || name)`, the
    /// group key of access group `name` in key domain `d` (R2-KEY-1). The name is bound so that two
    /// copies of one vault that gave domain `d` to different groups do not share a key.
    package static func groupKey(_ domain: UInt8, name: String, master: MasterKey) -> SecretBytes {
        let domainKey = BLAKE2b.deriveKey(from: master.secret, id: 256 + UInt64(domain), context: "VLTgroup")
        return BLAKE2b.keyedKey(key: domainKey, message: groupKeyMessage(name))
    }

    /// The message of the group key's keyed hash: `"VLT2gkey" || UTF-8 name` (R2-KEY-1).
    static func groupKeyMessage(_ name: String) -> [any ReadableBytes] {
        [Array("VLT2gkey".utf8), Array(name.utf8)]
    }

    /// The key domain of the group named `name` among `names` (name by domain), or `nil`. Names
    /// are compared byte for byte, never with String's canonical equivalence (R2-GRP-3): two
    /// Unicode spellings of one name are two groups.
    package static func domain(ofGroupNamed name: String, in names: [UInt8: String]) -> UInt8? {
        names.first { $0.value.utf8.elementsEqual(name.utf8) }?.key
    }

    /// The header's access groups, name by key domain, decrypted with the master key (R2-GRP-2).
    ///
    /// - Throws: `headerAuthentication` or `structure` for an entry that does not open or is
    ///   malformed; `structure` when two entries name the same group (byte for byte): a key holder
    ///   can splice in another copy's entry that gave the group another domain, and a writer would
    ///   then seal the group's items in either domain.
    package static func accessGroupNames(of header: VaultHeader, master: MasterKey) throws(VaultFormatError)
        -> [UInt8: String]
    {
        var names = [UInt8: String]()
        var seen = Set<[UInt8]>()
        for group in header.accessGroups {
            let name = try accessGroupName(of: group, master: master, vaultID: header.vaultID)
            guard seen.insert(Array(name.utf8)).inserted else {
                throw VaultFormatError(.structure, "two access-group fields name the same group")
            }
            names[group.domain] = name
        }
        return names
    }

    /// ``accessGroupNames(of:master:)``, or no groups when an entry is damaged: the keys are then
    /// derived again after the header MAC is checked, which reports the damage (R2-GRP-2).
    static func optionalAccessGroupNames(of header: VaultHeader, master: MasterKey) -> [UInt8: String] {
        (try? accessGroupNames(of: header, master: master)) ?? [:]
    }

    /// `GNK = Derive(MK, 3, "VLTgrpnm")`, the key that seals the access groups' names (R2-GRP-1).
    static func groupNameKey(_ master: MasterKey) -> KeyEncryptionKey {
        KeyEncryptionKey(secret: BLAKE2b.deriveKey(from: master.secret, id: 3, context: "VLTgrpnm"))
    }

    static func groupAssociatedData(domain: UInt8, vaultID: [UInt8]) -> [UInt8] {
        Array("VLT2grp_".utf8) + vaultID + [domain]
    }

    /// The table entry of access group `name` in key domain `domain`, its name sealed under `GNK`.
    ///
    /// - Throws: `invalidParameter` for an empty name, one over 64 UTF-8 bytes, or with control
    ///   characters.
    package static func makeAccessGroupEntry(
        name: String,
        domain: UInt8,
        master: MasterKey,
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom()
    ) throws(VaultFormatError) -> AccessGroupEntry {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= AccessGroupEntry.maximumNameByteCount else {
            throw VaultFormatError(.invalidParameter, "an access group name is 1 to 64 UTF-8 bytes")
        }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw VaultFormatError(.invalidParameter, "an access group name must not contain control characters")
        }
        let nonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        var plain = PaddedName.encode(name)
        defer { Sodium.wipe(&plain) }
        let sealed = XChaCha20Poly1305.seal(
            plain,
            using: groupNameKey(master),
            nonce: nonce,
            authenticating: groupAssociatedData(domain: domain, vaultID: vaultID)
        )
        return AccessGroupEntry(domain: domain, nonce: nonce, sealedName: sealed)
    }

    /// The name of an access group, decrypted with the master key (R2-GRP-2).
    ///
    /// - Throws: `headerAuthentication` when it does not open; `structure` when it opens but is
    ///   malformed (length 0 or over 64, non-zero padding, not UTF-8).
    package static func accessGroupName(of entry: AccessGroupEntry, master: MasterKey, vaultID: [UInt8])
        throws(VaultFormatError) -> String
    {
        var plain = try openSealedHeaderField(
            entry.sealedName,
            using: groupNameKey(master),
            nonce: entry.nonce,
            authenticating: groupAssociatedData(domain: entry.domain, vaultID: vaultID),
            what: "an access group's name"
        )
        defer { Sodium.wipe(&plain) }
        guard let name = PaddedName.decode(plain, at: 0), !name.isEmpty else {
            throw VaultFormatError(.structure, "an access group's name is malformed")
        }
        return name
    }

    /// The keys a limited stanza wraps for access group `name` in key domain `domain`:
    /// `HK || IK || LK || GK(domain, name)` (128 bytes, R2-RCP-2).
    static func limitedKeys(domain: UInt8, name: String, master: MasterKey) -> SecretBytes {
        let base = baseKey(from: master)
        let parts = [
            BLAKE2b.deriveKey(from: base.secret, id: 1, context: "VLTheadr"),
            BLAKE2b.deriveKey(from: base.secret, id: 2, context: "VLTindex"),
            BLAKE2b.deriveKey(from: base.secret, id: 3, context: "VLTlookp"),
            groupKey(domain, name: name, master: master),
        ]
        return SecretBytes(count: RecipientStanza.limitedKeysByteCount, protection: .guarded) { out in
            for (i, part) in parts.enumerated() {
                part.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: out[32 * i..<32 * i + 32]).copyMemory(from: $0)
                }
            }
        }
    }

    /// Builds a limited stanza (scope 2) that lets `recipient` read the records of access group
    /// `accessGroup` in key domain `domain` and nothing else (R2-RCP-2). The info is sealed as in
    /// R12-RCP-2.
    package static func makeLimitedRecipientStanza(
        for recipient: Recipient,
        domain: UInt8,
        accessGroup: String,
        master: MasterKey,
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom()
    ) throws(VaultFormatError) -> RecipientStanza {
        try sealStanza(
            for: recipient,
            scope: RecipientStanza.limitedScope,
            domain: domain,
            wrapping: limitedKeys(domain: domain, name: accessGroup, master: master),
            master: master,
            vaultID: vaultID,
            random: random
        )
    }

    /// `HK || IK || LK || GK` from a limited stanza when `identity` is its recipient, else `nil`
    /// (R2-RCP-3).
    package static func openLimitedRecipientStanza(
        _ stanza: RecipientStanza,
        identity: RecipientIdentity,
        vaultID: [UInt8]
    ) -> SecretBytes? {
        unwrapRecipientStanza(stanza, identity: identity, vaultID: vaultID)
    }
}
