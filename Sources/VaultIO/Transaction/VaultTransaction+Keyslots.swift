// vault: adding, removing and replacing keyslots inside a write (password change, key files, devices).

public import VaultFormat

extension VaultTransaction {
    // MARK: - Keyslots

    /// The keyslots of the new generation, in file order.
    public var keyslots: [Keyslot] { writer.header.keyslots }

    /// Whether the new generation has a keyslot that needs a password (kinds
    /// ``Keyslot/Kind/password`` and ``Keyslot/Kind/passwordAndKeyFile``).
    ///
    /// Spec: Spec/library-semantics.md, "whenPasscodeSetThisDeviceOnly" (L-PC-6).
    public var hasPasswordKeyslot: Bool { keyslots.contains { $0.kind.usesPassword } }

    /// Adds a keyslot that opens the vault with `credentials`.
    ///
    /// The new slot wraps the master key held by this transaction, so the vault
    /// must be unlocked with a master-scope keyslot. A ``Keyslot/Kind/device``
    /// slot wraps only the base key by default (the `always` classes and the
    /// index, see Spec/format-v1.md section 13.6); pass `scope: .masterKey` for a
    /// login-keychain style vault that the device secret opens completely.
    /// Records are untouched (R-KS-5).
    ///
    /// ```swift
    /// try vault.write { txn in
    ///     try txn.addKeyslot(.keyFile, credentials: Credentials(keyFile: keyFileBytes))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The credential kind of the new slot.
    ///   - credentials: What the slot needs: a password, a key file, or both. A
    ///     device slot uses `credentials.deviceSecret`, or else the device secret
    ///     the vault was opened with.
    ///   - kdf: Argon2id cost for password kinds; the configuration's ``VaultConfiguration/kdf``
    ///     when `nil`. Checked against the floor (R-KS-4) as ``Vault/create(at:credentials:keyslots:configuration:now:)`` does.
    ///   - scope: Which key the slot wraps; `nil` picks base for device slots and master otherwise.
    /// - Throws: ``VaultIOError/Code/locked`` when this transaction has no master key;
    ///   ``VaultFormatError`` `invalidParameter` (missing credential, a key file under
    ///   32 bytes (R-KF-1), more than 32 slots) or `kdfRejected`.
    public mutating func addKeyslot(
        _ kind: Keyslot.Kind,
        credentials: Credentials,
        kdf: KDFParameters? = nil,
        scope: Keyslot.Scope? = nil
    ) throws {
        let slot = try makeKeyslot(kind, credentials: credentials, kdf: kdf, scope: scope)
        try changeKeyslots(keyslots + [slot])
    }

    /// Removes the keyslot at `index` and, unless `rekey` is `nil`, replaces the master key
    /// so that the removed credential stops working on data written from now on.
    ///
    /// Without a rekey, the master key stays and records are untouched (R-KS-5): a copy of
    /// the file made before the removal, opened with the removed credential, still yields
    /// the master key of the current file. With a rekey (the default), a new master key seals
    /// every record again and every remaining keyslot is rewrapped, which needs each remaining
    /// slot's credential in `rekey` (see ``rekey(_:)``). The default options carry no
    /// credential: they keep only device keyslots of the device secret held and slots added
    /// in this transaction, and refuse otherwise.
    ///
    /// Removing the last password keyslot deletes every `whenPasscodeSetThisDeviceOnly`
    /// item, as Apple's keychain deletes them when the device passcode is removed.
    ///
    /// ```swift
    /// try vault.write { txn in
    ///     try txn.removeKeyslot(at: 1, rekey: RekeyOptions(credentials: [.password(passphrase)]))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - index: A position in ``keyslots``.
    ///   - rekey: How to rekey after the removal; `nil` keeps the master key.
    /// - Throws: ``VaultFormatError`` `invalidParameter` for an index out of range or
    ///   when the slot is the last one of master scope (the vault would be sealed for good);
    ///   ``VaultIOError/Code/locked`` when this transaction has no master key;
    ///   ``VaultIOError/Code/rekeyRefused`` as ``rekey(_:)``.
    ///
    /// Spec: Spec/library-semantics.md (L-KS-1, L-KS-5, L-PC-7).
    @discardableResult
    public mutating func removeKeyslot(at index: Int, rekey: RekeyOptions? = RekeyOptions()) throws -> RekeyReport? {
        try removeKeyslotKeepingMasterKey(at: index)
        guard let rekey else { return nil }
        return try self.rekey(rekey)
    }

    private mutating func removeKeyslotKeepingMasterKey(at index: Int) throws {
        try requireMasterKey("remove a keyslot")
        var slots = keyslots
        guard slots.indices.contains(index) else {
            throw VaultFormatError(.invalidParameter, "there is no keyslot \(index)")
        }
        slots.remove(at: index)
        try checkTPM2IsNotTheOnlyWayIn(slots)
        guard slots.contains(where: { $0.scope == .masterKey }) else {
            throw VaultFormatError(
                .invalidParameter,
                "keyslot \(index) is the last one that opens the master key; add another first"
            )
        }
        try changeKeyslots(slots)
    }

    /// Replaces the keyslot at `index` with a new one: a password change.
    ///
    /// Unless `rekey` is `nil`, the master key is then replaced as by ``rekey(_:)``, so that the
    /// old credential, with a copy of the file made before the change, does not open what is
    /// written from now on. The replacement slot is rewrapped with the key-encryption key it was
    /// made with; every other slot needs its credential in `rekey`. A vault whose only other
    /// slots are device slots of the held device secret needs none. With `rekey: nil` the master
    /// key stays and every record is copied as ciphertext (R-KS-5): use it when the credential
    /// does not change (raising a slot's KDF cost, changing its scope).
    ///
    /// ```swift
    /// try vault.write { txn in
    ///     try txn.replaceKeyslot(at: 0, kind: .password, credentials: .password(newPassphrase))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - index: A position in ``keyslots``.
    ///   - kind: The credential kind of the replacement.
    ///   - credentials: What the replacement needs.
    ///   - kdf: Argon2id cost for password kinds; the configuration's when `nil`.
    ///   - scope: Which key the replacement wraps; the replaced slot's scope when `nil`.
    ///   - rekey: How to rekey after the replacement; `nil` keeps the master key.
    /// - Returns: What the rekey did, or `nil` without one.
    /// - Throws: As ``addKeyslot(_:credentials:kdf:scope:)``, `invalidParameter` for an
    ///   index out of range or a replacement that leaves no master-scope slot, and as ``rekey(_:)``.
    ///
    /// Spec: Spec/library-semantics.md (L-KS-5).
    @discardableResult
    public mutating func replaceKeyslot(
        at index: Int,
        kind: Keyslot.Kind,
        credentials: Credentials,
        kdf: KDFParameters? = nil,
        scope: Keyslot.Scope? = nil,
        rekey: RekeyOptions? = RekeyOptions()
    ) throws -> RekeyReport? {
        var slots = keyslots
        guard slots.indices.contains(index) else {
            throw VaultFormatError(.invalidParameter, "there is no keyslot \(index)")
        }
        slots[index] = try makeKeyslot(kind, credentials: credentials, kdf: kdf, scope: scope ?? slots[index].scope)
        guard slots.contains(where: { $0.scope == .masterKey }) else {
            throw VaultFormatError(.invalidParameter, "the vault would have no keyslot that opens the master key")
        }
        try checkTPM2IsNotTheOnlyWayIn(slots)
        try changeKeyslots(slots)
        guard let rekey else { return nil }
        return try self.rekey(rekey)
    }

    // MARK: - Helpers

    private mutating func makeKeyslot(
        _ kind: Keyslot.Kind,
        credentials: Credentials,
        kdf: KDFParameters?,
        scope: Keyslot.Scope?
    ) throws -> Keyslot {
        let master = try requireMasterKey("add a keyslot")
        var credentials = credentials
        if kind == .device && credentials.deviceSecret == nil { credentials.deviceSecret = writer.keys.deviceSecret }
        let scope = scope ?? (kind == .device ? .baseKey : .masterKey)
        let wrapped = scope == .baseKey ? KeyHierarchy.baseKey(from: master).secret : master.secret
        let made = try KeyHierarchy.makeKeyslotKeepingKEK(
            kind: kind,
            wrapping: wrapped,
            scope: scope,
            credentials: credentials,
            kdf: kdf ?? self.kdf,
            vaultID: writer.header.vaultID,
            allowWeak: kdfFloor == .waivedForTesting,
            normalizesPassword: writer.header.followsVersion11Rules
        )
        newSlotKEKs[made.slot] = made.kek
        return made.slot
    }

    @discardableResult
    func requireMasterKey(_ action: String) throws(VaultIOError) -> MasterKey {
        guard let master = writer.keys.master else {
            throw VaultIOError(
                .locked,
                operation: action,
                reason: "the master key is not unlocked; unlock the vault with a password or key file first"
            )
        }
        return master
    }

    /// Sets the keyslots and applies L-PC-7: without a password keyslot, passcode-bound items go.
    private mutating func changeKeyslots(_ slots: [Keyslot]) throws {
        try writer.setKeyslots(slots)
        hasChanges = true
        keyslotsChanged = true
        try removePasscodeItemsWithoutPassword()
    }

    /// L-PC-7: without a password keyslot, the `whenPasscodeSetThisDeviceOnly` items go.
    mutating func removePasscodeItemsWithoutPassword() throws {
        if !hasPasswordKeyslot {
            let entries = try writer.entries
            for entry in entries where entry.protectionClass == .whenPasscodeSetThisDeviceOnly {
                try writer.remove(entry.itemID, now: now)
            }
        }
    }
}

extension VaultTransaction {
    // MARK: - Protection classes

    /// Moves item `id` to another protection class, re-encrypting that item only.
    ///
    /// The item keeps its ID, attributes and secret; its record is sealed again under
    /// the new class key with a fresh nonce, and every other record is copied as ciphertext.
    ///
    /// - Returns: Whether the item existed.
    /// - Throws: ``VaultIOError/Code/protectionUnavailable`` for `whenPasscodeSetThisDeviceOnly`
    ///   without a password keyslot; ``VaultFormatError`` `keyUnavailable` or `foreignDevice`
    ///   when either class key is not available here.
    ///
    /// Spec: Spec/library-semantics.md (L-PC-8).
    @discardableResult
    public mutating func setProtectionClass(
        _ protection: ProtectionClass,
        for id: ItemID,
        expecting expected: ExpectedVersion = .any
    ) throws -> Bool {
        guard let record = try writer.record(for: id) else { return false }
        guard record.entry.protectionClass != protection else { return true }
        let attributes = try RecordCodec.openCheckedAttributes(
            record.bytes[...],
            entry: record.entry,
            vaultID: writer.header.vaultID,
            keys: writer.keys
        )
        guard let secret = try secret(for: id) else { return false }
        let draft = ItemDraft(
            id: id,
            itemClass: record.entry.itemClass,
            protectionClass: protection,
            attributes: attributes,
            secret: secret
        )
        try set(draft, expecting: expected)
        return true
    }
}
