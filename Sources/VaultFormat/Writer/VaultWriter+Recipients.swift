// vault: the recipients of the next generation (format 1.2).

extension VaultWriter {
    /// Raises a 1.1 file to format 1.2 so that it may hold recipient stanzas (R12-MIG-1).
    ///
    /// A 1.0 file must be raised to 1.1 first (``upgradeToVersion11()``).
    ///
    /// - Returns: Whether the version changed.
    /// - Throws: `invalidParameter` when the file holds an unknown field of type `0x0001` (written
    ///   by another program): in a 1.2 file it would be read as a recipient stanza (R12-MIG-1).
    @discardableResult
    package mutating func upgradeToVersion12() throws -> Bool {
        guard header.major == 1, header.minor == 1 else { return false }
        guard !header.unknownFields.contains(where: { $0.type == RecipientStanza.fieldType }) else {
            throw VaultFormatError(
                .invalidParameter,
                "the vault holds a header field 0x0001 written by another program; in format 1.2 it would "
                    + "read as a recipient stanza, so the vault is not upgraded"
            )
        }
        header.minor = 2
        return true
    }

    /// The recipients of the next generation, in stanza order, decrypted with the master key.
    ///
    /// - Throws: `keyUnavailable` without the master key; `headerAuthentication` or `structure`
    ///   for a stanza whose info does not open or is malformed (R12-RCP-4).
    package func recipients() throws -> [Recipient] {
        try KeyHierarchy.recipients(of: header, keys: keys)
    }

    /// The master key, once `recipient` may be added: the checks every stanza added (full or
    /// limited) passes after its format check (R12-RCP-5).
    ///
    /// - Throws: `keyUnavailable` without the master key; `invalidParameter` when the key is
    ///   already a recipient; `limit` at 32 recipients.
    func masterKeyForNewRecipient(_ recipient: Recipient) throws -> MasterKey {
        guard let master = keys.master else {
            throw VaultFormatError(.keyUnavailable, "adding a recipient needs the master key")
        }
        if try recipients().contains(where: { $0.key == recipient.key }) {
            throw VaultFormatError(.invalidParameter, "this key is already a recipient of the vault")
        }
        guard header.recipientStanzas.count < RecipientStanza.maximumCount else {
            throw VaultFormatError(.limit, "a vault has at most \(RecipientStanza.maximumCount) recipients")
        }
        return master
    }

    /// Adds a stanza wrapping the master key to `recipient` (R12-RCP-2, R12-RCP-5). Records and
    /// keyslots are untouched.
    ///
    /// - Throws: `unsupportedVersion` when the file is not format 1.2 (migrate it first);
    ///   `keyUnavailable` without the master key; `invalidParameter` when the key is already a
    ///   recipient or the name is unusable; `limit` past 32 recipients or a full header.
    package mutating func addRecipient(_ recipient: Recipient, random: some RandomSource = SystemRandom())
        throws
    {
        guard header.followsVersion12Rules else {
            throw VaultFormatError(
                .unsupportedVersion,
                "recipients need vault format 1.2; this vault is \(header.major).\(header.minor)"
            )
        }
        let master = try masterKeyForNewRecipient(recipient)
        let stanza = try KeyHierarchy.makeRecipientStanza(
            for: recipient,
            master: master,
            vaultID: header.vaultID,
            random: random
        )
        header.recipientStanzas.append(stanza)
        guard header.encodedByteCount <= VaultHeader.maximumByteCount else {
            header.recipientStanzas.removeLast()
            throw VaultFormatError(.limit, "the header would exceed \(VaultHeader.maximumByteCount) bytes")
        }
    }

    /// Removes every stanza whose info does not read with the master key (R12-RCP-4), without a
    /// rekey: the caller rekeys (R12-RCP-6). A holder of `BK` can write a stanza the MAC accepts,
    /// but only a holder of `MK` one whose info opens; such a stanza was written by another holder
    /// of the vault's keys (or damaged), and it would otherwise block every rekey.
    ///
    /// - Returns: How many stanzas were removed.
    /// - Throws: `keyUnavailable` without the master key.
    package mutating func removeUnreadableRecipients() throws -> Int {
        guard let master = keys.master else {
            throw VaultFormatError(.keyUnavailable, "removing recipients needs the master key")
        }
        let vaultID = header.vaultID
        let before = header.recipientStanzas.count
        header.recipientStanzas.removeAll {
            (try? KeyHierarchy.recipient(of: $0, master: master, vaultID: vaultID)) == nil
        }
        return before - header.recipientStanzas.count
    }

    /// Removes every stanza that names `key`, without a rekey: the caller rekeys (R12-RCP-6).
    /// A recipient is its key (R12-RCP-7): a holder of `MK` can append a second stanza for a key,
    /// and removing one of two would leave that key able to open the vault.
    ///
    /// - Returns: How many stanzas were removed (0 when `key` is not a recipient).
    /// - Throws: `keyUnavailable` without the master key; as ``recipients()``.
    @discardableResult
    package mutating func removeRecipient(_ key: RecipientKey) throws -> Int {
        let named = try recipients().map { $0.key == key }
        var index = 0
        header.recipientStanzas.removeAll { _ in
            defer { index += 1 }
            return named[index]
        }
        return named.filter { $0 }.count
    }

    /// Removes the stanza at `index`, without a rekey: the caller rekeys (R12-RCP-6).
    ///
    /// - Throws: `invalidParameter` for an index out of range.
    package mutating func removeRecipient(at index: Int) throws {
        guard header.recipientStanzas.indices.contains(index) else {
            throw VaultFormatError(.invalidParameter, "there is no recipient \(index)")
        }
        header.recipientStanzas.remove(at: index)
    }
}
