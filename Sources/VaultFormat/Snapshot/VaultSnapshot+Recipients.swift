// vault: the recipients of an opened vault (format 1.2).

extension VaultSnapshot {
    /// The recipients the header names, in file order, decrypted with the master key.
    ///
    /// - Throws: `keyUnavailable` when the vault was opened without the master key (a base-scope
    ///   keyslot); `headerAuthentication` or `structure` for a damaged stanza (R12-RCP-4).
    ///
    /// Spec: Spec/format-v1.2.md, "Recipient stanzas".
    public func recipients() throws(VaultFormatError) -> [Recipient] {
        try KeyHierarchy.recipients(of: header, keys: keys)
    }

    /// Whether a recipient stanza, not a keyslot, opened this snapshot.
    public var openedByRecipient: Bool { openedKeyslot == KeyHierarchy.openedByRecipient }
}
