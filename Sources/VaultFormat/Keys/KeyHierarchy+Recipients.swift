// vault: wrapping the master key to recipients' X25519 public keys (format 1.2).

extension KeyHierarchy {
    /// Builds the stanza that lets `recipient` open the vault: a fresh ephemeral key pair,
    /// `KEK = BLAKE2b(32, X25519(e, R), "VLT12rcp" || E || R)`, the master key sealed under it,
    /// and the recipient's key and name sealed under `RIK = Derive(MK, 2, "VLTrcpnt")`.
    ///
    /// - Throws: `invalidParameter` for a name longer than 64 UTF-8 bytes or with control characters.
    ///
    /// Spec: Spec/format-v1.2.md, "Recipient stanzas" (R12-RCP-1, R12-RCP-2).
    package static func makeRecipientStanza(
        for recipient: Recipient,
        master: MasterKey,
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom()
    ) throws(VaultFormatError) -> RecipientStanza {
        try sealStanza(for: recipient, wrapping: master.secret, master: master, vaultID: vaultID, random: random)
    }

    /// The one sealing of a stanza, full or limited: checks the name, draws the ephemeral key,
    /// then the two nonces (in this order, so seeded fixtures stay byte for byte), seals `payload`
    /// under `KEK = BLAKE2b(32, X25519(e, R), "VLT12rcp" || E || R)` and the recipient's key and
    /// name under `RIK`. A limited stanza passes `scope` 2 and its `domain`.
    ///
    /// Spec: Spec/format-v1.2.md (R12-RCP-1, R12-RCP-2); Spec/format-v2.md (R2-RCP-2).
    static func sealStanza(
        for recipient: Recipient,
        scope: UInt8 = 0,
        domain: UInt8 = 0,
        wrapping payload: SecretBytes,
        master: MasterKey,
        vaultID: [UInt8],
        random: some RandomSource
    ) throws(VaultFormatError) -> RecipientStanza {
        try checkRecipientName(recipient.name)
        let ephemeral = SecretBytes(count: X25519.keyByteCount, protection: .guarded) { random.fill($0) }
        let ephemeralKey = X25519.publicKey(of: ephemeral)
        guard let shared = X25519.sharedSecret(ephemeral, recipient.key.bytes) else {
            throw VaultFormatError(.invalidParameter, "this recipient key is a low-order point and cannot be used")
        }
        var stanza = RecipientStanza(
            scope: scope,
            domain: domain,
            ephemeralKey: ephemeralKey,
            nonce: random.bytes(XChaCha20Poly1305.nonceByteCount),
            wrapped: [],
            infoNonce: random.bytes(XChaCha20Poly1305.nonceByteCount),
            info: []
        )
        let kek = recipientKEK(shared: shared, ephemeralKey: ephemeralKey, recipientKey: recipient.key.bytes)
        stanza.wrapped = XChaCha20Poly1305.seal(
            payload,
            using: kek,
            nonce: stanza.nonce,
            authenticating: recipientAssociatedData(stanza, vaultID: vaultID)
        )
        var plain = recipient.key.bytes + PaddedName.encode(recipient.name)
        defer { Sodium.wipe(&plain) }
        stanza.info = XChaCha20Poly1305.seal(
            plain,
            using: recipientInfoKey(master),
            nonce: stanza.infoNonce,
            authenticating: recipientInfoAssociatedData(stanza, vaultID: vaultID)
        )
        return stanza
    }

    /// The master key in `stanza` when `identity` is its recipient, else `nil` (R12-RCP-3).
    package static func openRecipientStanza(_ stanza: RecipientStanza, identity: RecipientIdentity, vaultID: [UInt8])
        -> MasterKey?
    {
        unwrapRecipientStanza(stanza, identity: identity, vaultID: vaultID).map { MasterKey(secret: $0) }
    }

    /// What `stanza` wraps (the master key, or a limited stanza's keys) when `identity` is its
    /// recipient, else `nil`: one X25519 and one AEAD open (R12-RCP-3, R2-RCP-3).
    static func unwrapRecipientStanza(_ stanza: RecipientStanza, identity: RecipientIdentity, vaultID: [UInt8])
        -> SecretBytes?
    {
        guard let shared = X25519.sharedSecret(identity.secret, stanza.ephemeralKey) else { return nil }
        let kek = recipientKEK(
            shared: shared,
            ephemeralKey: stanza.ephemeralKey,
            recipientKey: identity.recipient.bytes
        )
        return XChaCha20Poly1305.openKey(
            stanza.wrapped,
            using: kek,
            nonce: stanza.nonce,
            authenticating: recipientAssociatedData(stanza, vaultID: vaultID),
            protection: .guarded
        )
    }

    /// The recipients `header` names, in stanza order, decrypted with the master key: what a
    /// snapshot and a writer list (R12-RCP-4).
    ///
    /// - Throws: `keyUnavailable` when `keys` hold no master key (a base-scope keyslot);
    ///   `headerAuthentication` or `structure` for a damaged stanza.
    static func recipients(of header: VaultHeader, keys: VaultKeys) throws(VaultFormatError) -> [Recipient] {
        guard let master = keys.master else {
            throw VaultFormatError(.keyUnavailable, "the recipients are readable only with the master key")
        }
        var out = [Recipient]()
        for stanza in header.recipientStanzas {
            out.append(try recipient(of: stanza, master: master, vaultID: header.vaultID))
        }
        return out
    }

    /// Opens a header field sealed under a key derived from the master key (a recipient's info,
    /// an access group's name): a tag that does not verify is `headerAuthentication`, since only
    /// a holder of the master key writes these fields.
    ///
    /// - Returns: The plaintext; the caller wipes it.
    static func openSealedHeaderField(
        _ sealed: [UInt8],
        using key: KeyEncryptionKey,
        nonce: [UInt8],
        authenticating ad: [UInt8],
        what: String
    ) throws(VaultFormatError) -> [UInt8] {
        guard let plain = XChaCha20Poly1305.open(sealed, using: key, nonce: nonce, authenticating: ad) else {
            throw VaultFormatError(.headerAuthentication, "\(what) does not open with the master key")
        }
        return plain
    }

    /// The recipient a stanza names, decrypted with the master key (R12-RCP-4).
    ///
    /// - Throws: `headerAuthentication` when the info does not open under this master key;
    ///   `structure` when it opens but is malformed (a name over 64 bytes, non-zero padding, bad UTF-8).
    package static func recipient(of stanza: RecipientStanza, master: MasterKey, vaultID: [UInt8])
        throws(VaultFormatError) -> Recipient
    {
        var plain = try openSealedHeaderField(
            stanza.info,
            using: recipientInfoKey(master),
            nonce: stanza.infoNonce,
            authenticating: recipientInfoAssociatedData(stanza, vaultID: vaultID),
            what: "a recipient stanza"
        )
        defer { Sodium.wipe(&plain) }
        guard let name = PaddedName.decode(plain, at: 32), (try? checkRecipientName(name)) != nil
        else {
            throw VaultFormatError(.structure, "a recipient stanza's name is malformed")
        }
        // A stored key no writer would write is damage, not a caller's mistake (R12-RCP-4).
        guard let key = try? RecipientKey(bytes: Array(plain[0..<32])) else {
            throw VaultFormatError(.structure, "a recipient stanza names a low-order key")
        }
        return Recipient(key: key, name: name)
    }

    /// The name of the access group a limited stanza's domain belongs to (R2-RCP-1).
    private static func limitedGroup(of stanza: RecipientStanza, in accessGroups: [UInt8: String])
        throws(VaultFormatError) -> String
    {
        guard let name = accessGroups[stanza.domain] else {
            throw VaultFormatError(.structure, "a limited recipient stanza names a key domain without an access group")
        }
        return name
    }

    /// The stanzas again around `newMaster`: each recipient read with `oldMaster` gets a new
    /// stanza (fresh ephemeral key and nonces), in the same order (R12-RCP-6). `accessGroups`
    /// names the group of each key domain, for the limited stanzas' group keys (R2-KEY-1).
    package static func rewrapRecipientStanzas(
        _ stanzas: [RecipientStanza],
        from oldMaster: MasterKey,
        to newMaster: MasterKey,
        accessGroups: [UInt8: String],
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom()
    ) throws(VaultFormatError) -> [RecipientStanza] {
        // R12-RCP-7: one key is one recipient, written once, in the place of its first stanza. When
        // its stanzas grant different access, the full one is kept: its holder has held the master
        // key, and refusing instead would let any full recipient block every rekey.
        var recipients = [Recipient]()
        var chosen = [RecipientKey: RecipientStanza]()
        for stanza in stanzas {
            let recipient = try recipient(of: stanza, master: oldMaster, vaultID: vaultID)
            if let kept = chosen[recipient.key] {
                if kept.isLimited && !stanza.isLimited { chosen[recipient.key] = stanza }
            } else {
                chosen[recipient.key] = stanza
                recipients.append(recipient)
            }
        }
        var out = [RecipientStanza]()
        for recipient in recipients {
            let stanza = chosen[recipient.key]!
            if stanza.isLimited {
                // Format 2.0: a limited stanza stays limited to its domain, with the new keys (R2-RCP-5).
                out.append(
                    try makeLimitedRecipientStanza(
                        for: recipient,
                        domain: stanza.domain,
                        accessGroup: try limitedGroup(of: stanza, in: accessGroups),
                        master: newMaster,
                        vaultID: vaultID,
                        random: random
                    )
                )
            } else {
                out.append(try makeRecipientStanza(for: recipient, master: newMaster, vaultID: vaultID, random: random))
            }
        }
        return out
    }

    /// Refuses a name a stanza cannot hold or a terminal would misprint.
    package static func checkRecipientName(_ name: String) throws(VaultFormatError) {
        guard name.utf8.count <= RecipientStanza.maximumNameByteCount else {
            throw VaultFormatError(
                .invalidParameter,
                "a recipient name is at most \(RecipientStanza.maximumNameByteCount) UTF-8 bytes"
            )
        }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw VaultFormatError(.invalidParameter, "a recipient name must not contain control characters")
        }
    }

    // MARK: - Derivations

    static func recipientKEK(shared: SecretBytes, ephemeralKey: [UInt8], recipientKey: [UInt8]) -> KeyEncryptionKey {
        KeyEncryptionKey(
            secret: BLAKE2b.keyedKey(key: shared, message: [Array("VLT12rcp".utf8), ephemeralKey, recipientKey])
        )
    }

    static func recipientInfoKey(_ master: MasterKey) -> KeyEncryptionKey {
        KeyEncryptionKey(secret: BLAKE2b.deriveKey(from: master.secret, id: 2, context: "VLTrcpnt"))
    }

    static func recipientAssociatedData(_ stanza: RecipientStanza, vaultID: [UInt8]) -> [UInt8] {
        Array("VLT12rcp".utf8) + vaultID + stanza.prefix
    }

    static func recipientInfoAssociatedData(_ stanza: RecipientStanza, vaultID: [UInt8]) -> [UInt8] {
        Array("VLT12inf".utf8) + vaultID + stanza.prefix
    }
}
