// vault: access groups with their own keys, and recipients limited to one of them (format 2.0).

extension VaultWriter {
    /// Raises a format 1.1 or 1.2 file to format 2.0, so that it may hold access-group keys and
    /// limited recipients (R2-MIG-1). Records, keyslots and stanzas stay; each index entry gains
    /// its key domain, 0.
    ///
    /// A 1.0 file must be raised to 1.1 first (``upgradeToVersion11()``).
    ///
    /// - Returns: Whether the version changed.
    /// - Throws: `invalidParameter` when a 1.1 file holds an unknown field of type `0x0001`
    ///   (R12-MIG-1 applies: in 2.0 it would read as a recipient stanza); `unsupportedVersion`
    ///   for a 1.0 file.
    @discardableResult
    package mutating func upgradeToVersion2() throws -> Bool {
        if header.hasAccessGroups { return false }
        guard header.major == 1, header.minor >= 1 else {
            throw VaultFormatError(.unsupportedVersion, "a format 1.0 vault is migrated to 1.1 first")
        }
        try upgradeToVersion12()
        header.major = VaultHeader.version2Major
        header.minor = 0
        return true
    }

    /// The access groups of the next generation by key domain, decrypted with the master key.
    ///
    /// - Throws: `keyUnavailable` without the master key; `headerAuthentication` or `structure`
    ///   for an entry that does not open or is malformed (R2-GRP-2).
    package func accessGroupNames() throws -> [UInt8: String] {
        guard !header.accessGroups.isEmpty else { return [:] }
        guard let master = keys.master else {
            throw VaultFormatError(.keyUnavailable, "the access groups are readable only with the master key")
        }
        return try KeyHierarchy.accessGroupNames(of: header, master: master)
    }

    /// The key domain an item of `accessGroup` is sealed in (R2-GRP-3): the domain of the group
    /// of that name, or 0.
    ///
    /// - Throws: `keyUnavailable` when the vault has access groups, the item names an access group
    ///   and the master key is not held (the writer cannot tell whether the group is one of them).
    func keyDomain(forAccessGroup accessGroup: String) throws -> UInt8 {
        guard !header.accessGroups.isEmpty, !accessGroup.isEmpty else { return 0 }
        guard keys.master != nil else {
            throw VaultFormatError(
                .keyUnavailable,
                "this vault seals some access groups under their own keys; writing an item of an access group "
                    + "needs the master key"
            )
        }
        return KeyHierarchy.domain(ofGroupNamed: accessGroup, in: try accessGroupNames()) ?? 0
    }

    /// Adds a recipient limited to the items of `accessGroup` (R2-RCP-2, R2-GRP-4).
    ///
    /// The first limited recipient of a group gives the group a key domain: a table entry, and
    /// every item of the group sealed again in that domain (fresh nonce, version = this
    /// generation). The recipient gets a scope-2 stanza: the header, index and lookup keys and the
    /// group's key, nothing from which another group's or domain 0's record keys derive.
    ///
    /// - Throws: `unsupportedVersion` when the file is not format 2.0 (migrate it with
    ///   ``upgradeToVersion2()`` first); `keyUnavailable` without the master key;
    ///   `invalidParameter` when the key is already a recipient, or the name or group is unusable;
    ///   `limit` past 32 recipients or groups; `foreignDevice` when an item of the group is another
    ///   device's and cannot be sealed again.
    package mutating func addRecipient(
        _ recipient: Recipient,
        limitedTo accessGroup: String,
        random: some RandomSource = SystemRandom()
    ) throws {
        guard header.hasAccessGroups else {
            throw VaultFormatError(
                .unsupportedVersion,
                "a recipient limited to one access group needs vault format 2.0 or later; this vault is "
                    + "\(header.major).\(header.minor)"
            )
        }
        let master = try masterKeyForNewRecipient(recipient)
        let saved = self
        do {
            let domain = try ensureKeyDomain(for: accessGroup, master: master, random: random)
            header.recipientStanzas.append(
                try KeyHierarchy.makeLimitedRecipientStanza(
                    for: recipient,
                    domain: domain,
                    accessGroup: accessGroup,
                    master: master,
                    vaultID: header.vaultID,
                    random: random
                )
            )
            guard header.encodedByteCount <= VaultHeader.maximumByteCount else {
                throw VaultFormatError(.limit, "the header would exceed \(VaultHeader.maximumByteCount) bytes")
            }
        } catch {
            self = saved
            throw error
        }
    }

    /// The key domain of `accessGroup`, creating it (and moving the group's items into it) when
    /// it has none yet (R2-GRP-4).
    private mutating func ensureKeyDomain(for accessGroup: String, master: MasterKey, random: some RandomSource)
        throws -> UInt8
    {
        let names = try accessGroupNames()
        if let existing = KeyHierarchy.domain(ofGroupNamed: accessGroup, in: names) { return existing }
        guard
            let domain = (1...UInt8(AccessGroupEntry.maximumCount)).first(where: { names[$0] == nil })
        else { throw VaultFormatError(.limit, "a vault has at most \(AccessGroupEntry.maximumCount) access groups") }
        let entry = try KeyHierarchy.makeAccessGroupEntry(
            name: accessGroup,
            domain: domain,
            master: master,
            vaultID: header.vaultID,
            random: random
        )
        // Every item of the group, read with the current keys, before the keys change.
        var moving = [ItemDraft]()
        // In item-ID order, so that a seeded random source gives the same nonces every time.
        let sorted = try entries.sorted(by: { $0.itemID < $1.itemID })
        for entry in sorted where entry.domain == 0 {
            guard let record = try record(for: entry.itemID) else { continue }
            let draft = try RecordCodec.openDraft(record.bytes[...], entry: entry, vaultID: header.vaultID, keys: keys)
            if draft.attributes.accessGroup.utf8.elementsEqual(accessGroup.utf8) { moving.append(draft) }
        }
        header.accessGroups.append(entry)
        header.accessGroups.sort { $0.domain < $1.domain }
        var groups = names
        groups[domain] = accessGroup
        keys = KeyHierarchy.keys(keys, groups: groups, vaultID: header.vaultID)
        for draft in moving { try put(draft, random: random) }
        return domain
    }
}
