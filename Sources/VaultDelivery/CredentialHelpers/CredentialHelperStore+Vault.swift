// vault: a credential-helper store's three operations on a vault's snapshot and transaction.

public import VaultIO

extension VaultSnapshot {
    /// The internet-password items whose attributes pass `filter`, most recently modified first,
    /// with their secrets when `withSecrets` is set: ``CredentialHelperStore/find(withSecrets:exact:_:)``
    /// over this generation.
    ///
    /// When `exact` is given and the item with that primary key exists and passes `filter`, it is
    /// the only result, found by its lookup tag with one decryption (L-KC-15). Otherwise every
    /// internet password's attributes are read, in chunks on every processor.
    ///
    /// ```swift
    /// let items = try snapshot.credentialHelperItems(withSecrets: true, exact: nil) { $0.server == "github.com" }
    /// ```
    ///
    /// - Parameters:
    ///   - withSecrets: Whether to read the secrets of the items returned.
    ///   - exact: A whole primary key to try first, or `nil`.
    ///   - filter: Which items to return; called from the scan's chunks, never kept.
    /// - Returns: The matching items, newest modification first.
    /// - Throws: The first damaged item, or the source's read error.
    public func credentialHelperItems(
        withSecrets: Bool,
        exact: ItemAttributes?,
        _ filter: (ItemAttributes) -> Bool
    ) throws -> [CredentialHelperItem] {
        if let exact, let position = try? position(identifiedBy: exact, itemClass: .internetPassword),
            let attributes = try? attributes(at: position), filter(attributes)
        {
            return [CredentialHelperItem(attributes: attributes, secret: withSecrets ? try secret(at: position) : nil)]
        }
        let found = try withoutActuallyEscaping(filter) { filter in
            let shared = UncheckedFilter(filter)
            return try scanItems(
                into: ItemCollector.self,
                itemClass: .internetPassword,
                includeSecrets: withSecrets,
                where: { shared.filter($0.attributes) }
            ).items
        }
        return found.sorted { $0.attributes.modificationDate > $1.attributes.modificationDate }.map { item in
            CredentialHelperItem(attributes: item.attributes, secret: item.secret)
        }
    }
}

extension VaultTransaction {
    /// Stores `secret` under the primary key of `attributes` through the one upsert
    /// (``VaultTransaction/upsert(_:identity:secret:protectionClass:newItemID:skipIfSecretUnchanged:existing:describe:)``),
    /// and removes every other internet password that `replacing` accepts:
    /// ``CredentialHelperStore/store(_:secret:replacing:)`` in this transaction.
    ///
    /// An item with the same key and the same secret is left as it is. Without `replacing`, no
    /// other item is decrypted.
    ///
    /// - Parameters:
    ///   - attributes: The item's attributes; their primary key names it.
    ///   - secret: The secret to store.
    ///   - replacing: Which other internet passwords to remove, or `nil` for none.
    /// - Returns: Whether anything changed.
    /// - Throws: What the transaction throws.
    public mutating func storeCredentialHelperItem(
        _ attributes: ItemAttributes,
        secret: SecretBytes,
        replacing: ((ItemAttributes) -> Bool)?
    ) throws -> Bool {
        let existing = try item(identifiedBy: attributes, itemClass: .internetPassword)
        var changed = false
        if let replacing {
            for (id, other) in try internetPasswords() where id != existing?.id && replacing(other) {
                changed = try remove(id: id) || changed
            }
        }
        let result = try upsert(.internetPassword, identity: attributes, secret: secret, skipIfSecretUnchanged: true)
        return changed || result != .unchanged(result.id)
    }

    /// Removes every internet password whose attributes pass `filter` and, when `secret` is
    /// given, whose secret equals it: ``CredentialHelperStore/erase(_:ifSecretEquals:)`` in this
    /// transaction.
    ///
    /// - Parameters:
    ///   - filter: Which items to remove.
    ///   - secret: The secret an item must hold to be removed, or `nil` for any.
    /// - Returns: How many items were removed.
    /// - Throws: What the transaction throws; a damaged item is not skipped.
    public mutating func eraseCredentialHelperItems(
        _ filter: (ItemAttributes) -> Bool,
        ifSecretEquals secret: SecretBytes?
    ) throws -> Int {
        var removed = 0
        for (id, attributes) in try internetPasswords() where filter(attributes) {
            if let secret, try self.secret(for: id) != secret { continue }
            if try remove(id: id) { removed += 1 }
        }
        return removed
    }

    /// Every internet password the transaction's keys can open.
    private func internetPasswords() throws -> [(ItemID, ItemAttributes)] {
        try openedItems(of: .internetPassword, skippingDamage: false).map { ($0.entry.itemID, $0.attributes) }
    }
}

/// A filter the scan's chunks only call, never keep: the helpers' matchers are plain closures
/// over the request.
private struct UncheckedFilter: @unchecked Sendable {
    let filter: (ItemAttributes) -> Bool
    init(_ filter: @escaping (ItemAttributes) -> Bool) { self.filter = filter }
}
