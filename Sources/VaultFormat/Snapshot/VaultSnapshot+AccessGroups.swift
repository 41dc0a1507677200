// vault: which access group each recipient of an opened vault is limited to (format 2.0).

extension VaultSnapshot {
    /// For each recipient stanza in file order, the access group it is limited to, or `nil` for
    /// a recipient that holds the master key.
    ///
    /// - Throws: `keyUnavailable` without the master key; `headerAuthentication` or `structure`
    ///   for a damaged access-group field (R2-GRP-2).
    ///
    /// Spec: Spec/format-v2.md, "Limited recipient stanzas".
    public func recipientAccessGroups() throws(VaultFormatError) -> [String?] {
        guard let master = keys.master else {
            throw VaultFormatError(.keyUnavailable, "the access groups are readable only with the master key")
        }
        let names = try KeyHierarchy.accessGroupNames(of: header, master: master)
        return header.recipientStanzas.map { $0.isLimited ? names[$0.domain] : nil }
    }
}
