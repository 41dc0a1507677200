// vault: rewrapping keyslots around a new master key.

extension KeyHierarchy {
    /// The key-encryption key of `slot`, derived from `credentials`, when it really opens the slot.
    ///
    /// A keyslot stores `Seal(KEK, nonce, key, AD)` and nothing from which the KEK could be
    /// recomputed without the credential (format section 5), so a slot can be rewrapped around a
    /// new master key only by someone who can open it. Opening it here proves the credential is
    /// the slot's own: a wrong password never silently replaces a slot's password.
    ///
    /// - Returns: The KEK, or `nil` when the credentials do not fit or do not open the slot.
    /// - Throws: `kdfRejected` when a password slot's parameters break R-KS-2 (before Argon2 runs);
    ///   `cryptoFailure` when Argon2 fails.
    /// - Parameter normalizingPassword: Whether the file follows format 1.1, whose password KEKs
    ///   come from the NFC form of the password (R11-PW-1).
    package static func keyEncryptionKey(
        opening slot: Keyslot,
        with credentials: Credentials,
        vaultID: [UInt8],
        normalizingPassword: Bool
    ) throws(VaultFormatError) -> KeyEncryptionKey? {
        guard
            let kek = try keyEncryptionKey(
                for: slot,
                credentials: credentials,
                normalizingPassword: normalizingPassword
            )
        else { return nil }
        return unwrap(slot, with: kek, vaultID: vaultID) == nil ? nil : kek
    }

    /// `slot` with `key` wrapped under `kek` and a fresh nonce: the same kind, scope, KDF
    /// parameters and salt, so the same credential opens it (format section 5, R-KS-5).
    ///
    /// Keeping the salt keeps the KEK: no KDF runs. Only the nonce, which must never repeat under
    /// one KEK, is new.
    package static func rewrap(
        _ slot: Keyslot,
        key: SecretBytes,
        using kek: KeyEncryptionKey,
        vaultID: [UInt8],
        random: some RandomSource = SystemRandom()
    ) -> Keyslot {
        var out = slot
        out.nonce = random.bytes(XChaCha20Poly1305.nonceByteCount)
        out.wrapped = XChaCha20Poly1305.seal(
            key,
            using: kek,
            nonce: out.nonce,
            authenticating: slotAssociatedData(out, vaultID: vaultID)
        )
        return out
    }
}
