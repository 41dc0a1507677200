// vault: unlocking a keyslot and keeping its key-encryption key, for writes that rewrap it.

extension KeyHierarchy {
    /// Opens the first keyslot that `credentials` unlock, as ``unlock(_:with:)`` does, and also
    /// returns that slot's key-encryption key.
    ///
    /// A write that changes keyslots (a removal with a rekey rewraps every kept slot) can then
    /// rewrap the slot that opened the vault without running its key derivation a second time.
    ///
    /// - Returns: The index of the slot that opened, the keys, and the slot's KEK.
    /// - Throws: As ``unlock(_:with:)``.
    package static func unlockKeepingKEK(_ header: VaultHeader, with credentials: Credentials)
        throws(VaultFormatError) -> (slot: Int, keys: VaultKeys, kek: KeyEncryptionKey)
    {
        for slot in header.keyslots where slot.kind.usesPassword { try slot.kdf?.validateForReading() }
        try KDFParameters.validateTotal(of: header.keyslots)
        // The same order as unlock(_:with:): master scope first, cheap kinds before Argon2.
        let order = header.keyslots.indices.sorted { a, b in
            let sa = header.keyslots[a]
            let sb = header.keyslots[b]
            return (sa.scope.rawValue, sa.kind.usesPassword ? 1 : 0, a) < (
                sb.scope.rawValue, sb.kind.usesPassword ? 1 : 0, b
            )
        }
        for index in order {
            let slot = header.keyslots[index]
            guard
                let kek = try keyEncryptionKey(
                    for: slot,
                    credentials: credentials,
                    normalizingPassword: header.followsVersion11Rules
                ),
                var unwrapped = XChaCha20Poly1305.open(
                    slot.wrapped,
                    using: kek,
                    nonce: slot.nonce,
                    authenticating: slotAssociatedData(slot, vaultID: header.vaultID)
                )
            else { continue }
            defer { Sodium.wipe(&unwrapped) }
            let secret = SecretBytes(bytes: unwrapped, protection: .guarded)
            let master = slot.scope == .masterKey ? MasterKey(secret: secret) : nil
            let base = master.map(baseKey(from:)) ?? BaseKey(secret: secret)
            let keys = VaultKeys(
                master: master,
                base: base,
                deviceSecret: credentials.deviceSecret,
                vaultID: header.vaultID
            )
            return (index, keys, kek)
        }
        throw VaultFormatError(.wrongCredential, "wrong password or key file")
    }
}
