// vault: the recipients of an opened vault (format 1.2).

extension VaultSnapshot {
    /// The recipients the header names, in file order, decrypted with the master key.
    ///
    /// - Throws: `keyUnavailable` when the vault was opened without the master key (a base-scope
    ///   keyslot); `headerAuthentication` or `structure` for a damaged stanza (R12-RCP-4).
    ///
    /// Spec: Spec/format-v1.2.md, "Recipient stanzas".
    public func recipients() throws(VaultFormatError) -> [Recipient] {
        guard let master = keys.master else {
            throw VaultFormatError(.keyUnavailable, "the recipients are readable only with the master key")
        }
        var out = [Recipient]()
        for stanza in header.recipientStanzas {
            out.append(try KeyHierarchy.recipient(of: stanza, master: master, vaultID: header.vaultID))
        }
        return out
    }

    /// Whether a recipient stanza, not a keyslot, opened this snapshot.
    public var openedByRecipient: Bool { openedKeyslot == KeyHierarchy.openedByRecipient }
}
