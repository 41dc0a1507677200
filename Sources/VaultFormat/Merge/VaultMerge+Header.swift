// vault: the header of a merged file: keyslots, access groups and recipients (R-MRG-12, R-MRG-15, R-MRG-16).

extension Merger {
    /// R-MRG-12: whether `next` makes guessing a password cheaper than `current` does: its
    /// cheapest password keyslot costs less Argon2id work (memory × passes) than `current`'s. A
    /// merge never takes such keyslots: an older copy's (before a KDF raise) look exactly so.
    static func lowersPasswordCost(from current: [Keyslot], to next: [Keyslot]) -> Bool {
        func cheapest(_ slots: [Keyslot]) -> UInt64? {
            slots.compactMap { $0.kdf.map { UInt64($0.memoryKiB) * UInt64($0.iterations) } }.min()
        }
        guard let mine = cheapest(current), let theirs = cheapest(next) else { return false }
        return theirs < mine
    }

    /// R-MRG-16: the access groups (format 2.0) of a merge of two files with one master key.
    ///
    /// A domain both sides have must hold the same group, and a group both sides have must be in
    /// the same domain; otherwise the merge refuses (`accessGroupsDiffer`): carrying a limited
    /// stanza of domain `d` into a header where `d` is another group would hand its holder that
    /// group's key. A group only theirs has is added with its domain, and ours' items of that
    /// group are sealed again in it (R2-GRP-4).
    static func mergeAccessGroups(ours: VaultSnapshot, theirs: VaultSnapshot, into writer: inout VaultWriter) throws {
        guard ours.header.hasAccessGroups || theirs.header.hasAccessGroups else { return }
        try writer.upgradeToVersion2()
        guard !theirs.header.accessGroups.isEmpty, let master = ours.keys.master else { return }
        let vaultID = ours.header.vaultID
        // Names are compared as UTF-8 bytes, as R2-GRP-3 compares them, not with String's
        // canonical equivalence: two spellings of "é" are two groups.
        var oursByDomain: [UInt8: [UInt8]] = [:]
        for group in ours.header.accessGroups {
            oursByDomain[group.domain] = Array(
                try KeyHierarchy.accessGroupName(of: group, master: master, vaultID: vaultID).utf8
            )
        }
        let oursNames = Set(oursByDomain.values)
        var added: [AccessGroupEntry] = []
        var addedNames: Set<[UInt8]> = []
        for group in theirs.header.accessGroups {
            let name = Array(try KeyHierarchy.accessGroupName(of: group, master: master, vaultID: vaultID).utf8)
            if let mine = oursByDomain[group.domain] {
                guard mine == name else {
                    throw VaultMergeError(
                        .accessGroupsDiffer,
                        "the two files use one access-group key domain for different groups; merge them "
                            + "after removing the limited recipients of one side"
                    )
                }
            } else {
                guard !oursNames.contains(name) else {
                    throw VaultMergeError(
                        .accessGroupsDiffer,
                        "the two files give one access group different key domains; merge them after "
                            + "removing the limited recipients of one side"
                    )
                }
                added.append(group)
                addedNames.insert(name)
            }
        }
        guard !added.isEmpty else { return }
        // Ours' items of the added groups, read with the current keys, before the keys change.
        var moving: [ItemDraft] = []
        let sorted = try writer.entries.sorted(by: { $0.itemID < $1.itemID })
        for entry in sorted where entry.domain == 0 {
            guard let record = try writer.record(for: entry.itemID) else { continue }
            let draft = try RecordCodec.openDraft(record.bytes[...], entry: entry, vaultID: vaultID, keys: writer.keys)
            if addedNames.contains(Array(draft.attributes.accessGroup.utf8)) { moving.append(draft) }
        }
        writer.header.accessGroups = (writer.header.accessGroups + added).sorted { $0.domain < $1.domain }
        writer.keys = KeyHierarchy.keys(
            writer.keys,
            groups: try KeyHierarchy.accessGroupNames(of: writer.header, master: master),
            vaultID: vaultID
        )
        for draft in moving { try writer.put(draft) }
    }

    /// R-MRG-15: the recipient stanzas of a merge of two files with one master key (with two keys,
    /// the kept side's stanzas come with its header). Returns how many stanzas ours gained or lost.
    static func mergeRecipients(
        ours: VaultSnapshot,
        theirs: VaultSnapshot,
        base: VaultSnapshot?,
        into writer: inout VaultWriter
    ) throws -> Int {
        let ourStanzas = ours.header.recipientStanzas
        let theirStanzas = theirs.header.recipientStanzas
        guard !ourStanzas.isEmpty || !theirStanzas.isEmpty else { return 0 }
        let ourKeys = try ours.recipients().map(\.key)
        let theirKeys = try theirs.recipients().map(\.key)
        // Three-way: a recipient the ancestor had and either side no longer has was removed there.
        var removed = Set<RecipientKey>()
        if let base, !base.header.recipientStanzas.isEmpty {
            let baseKeys = Set(try base.recipients().map(\.key))
            removed = baseKeys.subtracting(ourKeys).union(baseKeys.subtracting(theirKeys))
        }
        var stanzas: [RecipientStanza] = []
        var changes = 0
        for (stanza, key) in zip(ourStanzas, ourKeys) {
            if removed.contains(key) { changes += 1 } else { stanzas.append(stanza) }
        }
        for (stanza, key) in zip(theirStanzas, theirKeys) where !ourKeys.contains(key) && !removed.contains(key) {
            stanzas.append(stanza)
            changes += 1
        }
        guard changes > 0 else { return 0 }
        guard stanzas.count <= RecipientStanza.maximumCount else {
            throw VaultFormatError(.limit, "the merged vault would have more than 32 recipients")
        }
        if !stanzas.isEmpty { try writer.upgradeToVersion12() }
        writer.header.recipientStanzas = stanzas
        guard writer.header.encodedByteCount <= VaultHeader.maximumByteCount else {
            throw VaultFormatError(.limit, "the merged header would exceed \(VaultHeader.maximumByteCount) bytes")
        }
        return changes
    }
}
