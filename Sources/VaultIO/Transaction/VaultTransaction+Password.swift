// vault: changing the password keyslot that a credential opened, and removing the key-file keyslots.

public import VaultFormat

extension VaultTransaction {
    /// What ``changePassword(to:keeping:openedKeyslot:kdf:)`` did.
    public enum PasswordChange: Equatable, Sendable {
        /// The password of the keyslot at this index was replaced.
        case changed(keyslot: Int)
        /// The vault had no password keyslot: one was added at this index.
        case added(keyslot: Int)
    }

    /// Sets `newPassword` as the password of the keyslot the current credential opened
    /// (`openedKeyslot`, when it uses a password), else of the first password keyslot; adds a
    /// password keyslot when the vault has none. The key file and device secret of `current`
    /// stay part of the credential. The master key is kept: rekey afterwards, in the same
    /// transaction, to retire the old password (L-KS-5).
    ///
    /// Without `kdf`, a replaced keyslot keeps its Argon2id cost unless that is below the floor
    /// (R-KS-4), and a new one gets ``KDFParameters/default``.
    ///
    /// ```swift
    /// try session.write { txn in
    ///     _ = try txn.changePassword(to: new, keeping: current, openedKeyslot: session.openedKeyslot(in: txn.keyslots))
    ///     try txn.rekey(RekeyOptions(credentials: [current]))
    /// }
    /// ```
    ///
    /// - Throws: As ``replaceKeyslot(at:kind:credentials:kdf:scope:rekey:)`` and
    ///   ``addKeyslot(_:credentials:kdf:scope:)``.
    public mutating func changePassword(
        to newPassword: SecretBytes?,
        keeping current: Credentials,
        openedKeyslot opened: Int?,
        kdf: KDFParameters? = nil
    ) throws -> PasswordChange {
        let slots = keyslots
        let index =
            if let opened, slots.indices.contains(opened), slots[opened].kind.usesPassword { opened } else {
                slots.firstIndex { $0.kind.usesPassword }
            }
        var next = Credentials(password: newPassword, keyFile: current.keyFile)
        next.keyFileDigest = current.keyFileDigest
        next.deviceSecret = current.deviceSecret
        guard let index else {
            try addKeyslot(.password, credentials: next, kdf: kdf ?? .default)
            return .added(keyslot: keyslots.count - 1)
        }
        let kept = slots[index].kdf.flatMap { $0.isWeak ? nil : $0 }
        try replaceKeyslot(
            at: index,
            kind: slots[index].kind,
            credentials: next,
            kdf: kdf ?? kept ?? .default,
            rekey: nil
        )
        return .changed(keyslot: index)
    }

    /// Removes every keyslot that a key file alone opens (TPM2 keyslots, which the TPM opens,
    /// stay), keeping the master key.
    ///
    /// - Returns: How many keyslots were removed.
    /// - Throws: ``VaultIOError/Code/keyslotNotFound`` when the vault has no such keyslot; as
    ///   ``removeKeyslot(at:rekey:)``.
    public mutating func removeKeyFileKeyslots() throws -> Int {
        let tpm2 = Set(tpm2Keyslots)
        let indices = keyslots.indices.filter { keyslots[$0].kind == .keyFile && !tpm2.contains($0) }
        guard !indices.isEmpty else {
            throw VaultIOError(.keyslotNotFound, reason: "the vault has no key-file keyslot")
        }
        for index in indices.reversed() { try removeKeyslot(at: index, rekey: nil) }
        return indices.count
    }
}
