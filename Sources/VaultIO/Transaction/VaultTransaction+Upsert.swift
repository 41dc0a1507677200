// vault: finding an item by its identity in any spelling, and the one upsert every writer uses.

public import VaultFormat

extension VaultTransaction {
    /// What ``VaultTransaction/upsert(_:identity:secret:protectionClass:newItemID:skipIfSecretUnchanged:existing:describe:)`` did.
    public enum UpsertResult: Hashable, Sendable {
        /// A new item was stored under this ID.
        case added(ItemID)
        /// The existing item with this ID got the new secret.
        case updated(ItemID)
        /// The existing item with this ID already held the secret; nothing was written.
        case unchanged(ItemID)

        /// The item's ID.
        public var id: ItemID {
            switch self {
            case .added(let id), .updated(let id), .unchanged(let id): id
            }
        }
    }

    /// The item that `identity` names, in any spelling of its key (L-KC-15), including changes made
    /// earlier in this transaction; `nil` when there is none.
    ///
    /// The canonical primary key is looked up first; only when it is not there are the internet
    /// passwords compared by canonical identity (one attribute decryption each; the most recently
    /// modified match is taken; records that do not open here are skipped).
    ///
    /// - Throws: As ``item(for:)``.
    public func item(identifiedBy identity: ItemAttributes, itemClass: ItemClass) throws -> Item? {
        let canonical = identity.canonicalIdentity(for: itemClass)
        let key = PrimaryKey(itemClass: itemClass, attributes: canonical)
        if let item = try item(for: key) { return item }
        guard itemClass == .internetPassword else { return nil }
        var found: Item?
        for item in try openedItems(of: itemClass, skippingDamage: true)
        where PrimaryKey(itemClass: itemClass, attributes: item.attributes.canonicalIdentity(for: itemClass)) == key {
            if let kept = found, kept.attributes.answers(for: key, before: item.attributes, itemClass: itemClass) {
                continue
            }
            found = item
        }
        return found
    }

    /// Every item that `identity` names, in every spelling of its key (L-KC-15), with one scan of
    /// the internet passwords at most: what a removal takes, so that no older copy answers after it.
    public func items(identifiedBy identity: ItemAttributes, itemClass: ItemClass) throws -> [Item] {
        let key = PrimaryKey(itemClass: itemClass, attributes: identity.canonicalIdentity(for: itemClass))
        guard itemClass == .internetPassword else { return try item(for: key).map { [$0] } ?? [] }
        return try openedItems(of: itemClass, skippingDamage: true).filter {
            PrimaryKey(itemClass: itemClass, attributes: $0.attributes.canonicalIdentity(for: itemClass)) == key
        }
    }

    /// Every item (of `itemClass`, when given) whose attributes open here, in index order.
    /// Records whose keys are not held here (another device, a locked class, another access
    /// group) are left out; so is a damaged record when `skippingDamage`, else it throws.
    public func openedItems(of itemClass: ItemClass? = nil, skippingDamage: Bool) throws -> [Item] {
        var items: [Item] = []
        for entry in try entries where itemClass == nil || entry.itemClass == itemClass {
            do {
                if let attributes = try attributes(for: entry.itemID) {
                    items.append(Item(entry: entry, attributes: attributes))
                }
            } catch let error as VaultFormatError
                where skippingDamage || error.code == .foreignDevice || error.code == .keyUnavailable
            {
                continue
            }
        }
        return items
    }

    /// Every item whose attributes open here, by canonical primary key (L-KC-15): one attribute
    /// decryption per item, for a caller that looks up many identities (an import). Of several
    /// items with one identity the canonical spelling is kept, else the most recently modified.
    public func identities() throws -> [PrimaryKey: Item] {
        var found: [PrimaryKey: Item] = [:]
        for item in try openedItems(skippingDamage: true) {
            let itemClass = item.entry.itemClass
            let key = PrimaryKey(itemClass: itemClass, attributes: item.attributes.canonicalIdentity(for: itemClass))
            if let kept = found[key], kept.attributes.answers(for: key, before: item.attributes, itemClass: itemClass) {
                continue
            }
            found[key] = item
        }
        return found
    }

    /// Stores `secret` for the item that `identity` names: the one upsert of the library, the
    /// keychain API, vaulttool, its helpers and importers (Spec/library-semantics.md, L-KC-15).
    ///
    /// An existing item, found in any spelling of its key, keeps its ID, creation date and the
    /// attributes `describe` leaves alone; its key is rewritten in the canonical spelling. A new
    /// item gets `identity`'s attributes and a creation date. Both get ``now`` as modification
    /// date before `describe` runs, so `describe` may set the dates (an import keeps them).
    ///
    /// ```swift
    /// var key = ItemAttributes(account: "alice")
    /// key.server = "GitHub.com"
    /// try vault.write { txn in
    ///     try txn.upsert(.internetPassword, identity: key, secret: token) { $0.label = "GitHub" }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - itemClass: Generic or internet password.
    ///   - identity: The identifying attributes, in any spelling, and a new item's other attributes.
    ///   - secret: The secret.
    ///   - protectionClass: The item's protection class; `nil` keeps an existing item's, and a new
    ///     item is ``ProtectionClass/whenUnlocked``.
    ///   - newItemID: The ID of a new item (an import keeps the source's); `nil` draws one.
    ///   - skipIfSecretUnchanged: Whether an existing item that already holds `secret` is left as
    ///     it is (a credential helper's repeated `store`).
    ///   - known: The existing item when the caller has looked it up (``identities()`` once for
    ///     many upserts, as an import does), `.some(nil)` when there is none; `nil` looks it up.
    ///   - describe: Sets the descriptive attributes (label, comment, type, dates); changes it makes
    ///     to the identifying attributes are ignored.
    /// - Returns: What was done, and the item's ID (in format 1.1 a device-bound item's is
    ///   device-tagged, R11-DEV-1).
    /// - Throws: As ``item(for:)`` and ``set(_:expecting:)``, and what `describe` throws.
    @discardableResult
    public mutating func upsert(
        _ itemClass: ItemClass,
        identity: ItemAttributes,
        secret: SecretBytes,
        protectionClass: ProtectionClass? = nil,
        newItemID: ItemID? = nil,
        skipIfSecretUnchanged: Bool = false,
        existing known: Item?? = nil,
        describe: (inout ItemAttributes) throws -> Void = { _ in }
    ) throws -> UpsertResult {
        let canonical = identity.canonicalIdentity(for: itemClass)
        let existing = try known ?? item(identifiedBy: canonical, itemClass: itemClass)
        if let existing, skipIfSecretUnchanged, let old = try self.secret(for: existing.id), old == secret,
            PrimaryKey(itemClass: itemClass, attributes: existing.attributes)
                == PrimaryKey(
                    itemClass: itemClass,
                    attributes: canonical
                ),
            protectionClass == nil || protectionClass == existing.entry.protectionClass
        {
            return .unchanged(existing.id)
        }
        var stored = existing?.attributes ?? canonical
        if existing == nil { stored.creationDate = now }
        stored.modificationDate = now
        try describe(&stored)
        stored.takeIdentity(of: canonical)
        let draft = ItemDraft(
            id: existing?.id ?? newItemID ?? ItemID(random: SystemRandom()),
            itemClass: itemClass,
            protectionClass: protectionClass ?? existing?.entry.protectionClass ?? .whenUnlocked,
            attributes: stored,
            secret: secret
        )
        try set(draft, expecting: existing.map { .version($0.version) } ?? .absent)
        // R11-DEV-1: a device-bound item may be stored under its device-tagged ID.
        let id = draft.protectionClass.isDeviceBound ? try item(for: draft.primaryKey)?.id ?? draft.id : draft.id
        return existing == nil ? .added(id) : .updated(id)
    }
}
