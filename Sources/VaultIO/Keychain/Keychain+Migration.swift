// vault: moving and copying items between services, access groups and vaults, in Valet's manner.

public import FoundationEssentials
public import VaultFormat

/// One item on its way from one keychain to another; a migration's transform may change it.
public struct KeychainMigrationItem: Sendable {
    /// The key in the destination (the source key unless renamed).
    public var key: String
    /// The value's bytes.
    public var value: Data
    /// The stored type code (see ``KeychainValueCodec``).
    public var valueType: UInt32
    /// The protection class in the destination.
    public var accessibility: ProtectionClass
    /// Whether the destination item is synchronizable.
    public var synchronizable: Bool
    /// The label and comment.
    public var label: String
    public var comment: String
    /// The description, creator, application data and flags, carried over as stored.
    public var attributeDescription: String = ""
    public var creator: FourCharacterCode? = nil
    public var generic: Data = Data()
    public var isInvisible = false
    public var isNegative = false
}

/// What a migration did.
public struct KeychainMigrationResult: Sendable, Hashable {
    /// The destination keys written.
    public var migrated: [String] = []
    /// The source keys the transform skipped.
    public var skipped: [String] = []
    /// `…ThisDeviceOnly` items left behind: written on another device, or bound to a
    /// device secret the destination vault does not hold.
    public var leftOnDevice = 0

    /// Whether the source scope held no item at all: nothing migrated, skipped or left behind.
    ///
    /// Migrating from an empty source is not an error (Valet throws `itemNotFound`): a
    /// migration that runs at every launch is then a no-op once done. Check this where an
    /// empty source means something is wrong. Spec: L-KC-12.
    public var foundNothing: Bool { migrated.isEmpty && skipped.isEmpty && leftOnDevice == 0 }
}

extension Keychain {
    /// Copies or moves every item of `source`'s scope into this keychain.
    ///
    /// All or nothing: when any destination key is taken (or two items would get the
    /// same key), ``KeychainError/conflict(_:)`` is thrown and neither side changes.
    /// Within one vault the whole migration is one transaction. Between two vaults it
    /// holds the source's write lock while it commits the destination and then the
    /// source; a failure between the two commits leaves the items in both vaults,
    /// never in neither.
    ///
    /// `…ThisDeviceOnly` items are left out when they belong to another device, or
    /// when the destination vault holds a different device secret: they never move
    /// to another device.
    ///
    /// ```swift
    /// let old = Keychain(service: "com.example.old", vault: vault)
    /// let new = Keychain(service: "com.example.app", vault: vault)
    /// try new.migrateItems(from: old, removingFromSource: true) { item in
    ///     item.key == "legacy" ? nil : item                     // skip one
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - source: The keychain to read from; it may use another vault.
    ///   - removingFromSource: Whether to move (remove from `source`) rather than copy.
    ///   - transform: Changes an item (rename, accessibility…) or returns `nil` to skip it.
    /// - Returns: What was migrated and skipped.
    /// An item of the source's scope whose secret is damaged fails the migration with
    /// ``KeychainError/corrupt(what:)`` naming its ID; a record whose attributes are damaged cannot
    /// be told to be in scope, is left, and is reported to the source's ``onDamagedItem(_:)``
    /// (L-KC-17).
    ///
    /// - Throws: ``KeychainError/conflict(_:)``; ``KeychainError/locked``; the transform's error,
    ///   as ``KeychainError/invalidParameter(_:)`` unless it is a ``KeychainError``.
    @discardableResult
    public func migrateItems(
        from source: Keychain,
        removingFromSource: Bool = false,
        transform: (KeychainMigrationItem) throws -> KeychainMigrationItem? = { $0 }
    ) throws(KeychainError) -> KeychainMigrationResult {
        var unattributed: [KeychainDamagedItem] = []
        defer { unattributed.forEach(source.reportDamage) }
        return try call {
            if source.vault.path == vault.path {
                return try vault.write { txn in
                    var read = try read(source, in: txn, for: txn.deviceSecret, transform, &unattributed)
                    if removingFromSource { for (id, _) in read.items { try txn.remove(id: id) } }
                    try insert(read.moved, into: &txn, result: &read.result)
                    return read.result
                }
            }
            return try source.vault.write { sourceTxn in
                var read = try read(source, in: sourceTxn, for: vault.deviceSecret, transform, &unattributed)
                try vault.write { try insert(read.moved, into: &$0, result: &read.result) }
                if removingFromSource { for (id, _) in read.items { try sourceTxn.remove(id: id) } }
                return read.result
            }
        }
    }

    /// What the first half of a migration read from the source.
    private struct Read {
        /// The source's items of its scope, with their IDs.
        var items: [(ItemID, KeychainMigrationItem)]
        /// What the transform made of them.
        var moved: [KeychainMigrationItem]
        /// What was skipped so far.
        var result: KeychainMigrationResult
    }

    /// The first half of every migration, in the source's transaction: `source`'s items (a
    /// `…ThisDeviceOnly` one only when `destinationSecret`, the destination's device secret, is
    /// the source's) and what `transform` makes of them. `unattributed` starts afresh, since a
    /// write may run its body more than once.
    private func read(
        _ source: Keychain,
        in txn: VaultTransaction,
        for destinationSecret: DeviceSecret?,
        _ transform: (KeychainMigrationItem) throws -> KeychainMigrationItem?,
        _ unattributed: inout [KeychainDamagedItem]
    ) throws -> Read {
        var result = KeychainMigrationResult()
        unattributed = []
        let items = try source.collect(
            in: txn,
            destinationSecret: destinationSecret,
            into: &result,
            unattributed: &unattributed
        )
        let moved = try transformed(items, transform, into: &result)
        return Read(items: items, moved: moved, result: result)
    }

    /// The readable items of this keychain's scope in `txn`, with their IDs.
    ///
    /// An in-scope item whose secret is damaged throws ``ItemDamage`` naming it: the migration is
    /// all or nothing. A record of this class whose attributes are damaged cannot be told to be in
    /// scope: it goes to `unattributed`, to be reported (L-KC-17).
    private func collect(
        in txn: VaultTransaction,
        destinationSecret: DeviceSecret?,
        into result: inout KeychainMigrationResult,
        unattributed: inout [KeychainDamagedItem]
    ) throws -> [(ItemID, KeychainMigrationItem)] {
        var items: [(ItemID, KeychainMigrationItem)] = []
        for entry in try txn.entries.sorted(by: { $0.itemID < $1.itemID }) {
            let attributes: ItemAttributes?
            do {
                attributes = try txn.attributes(for: entry.itemID)
            } catch let error as VaultFormatError where error.code == .foreignDevice {
                result.leftOnDevice += 1
                continue
            } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
                let damage = ItemDamage(entry: entry, attributes: nil, error: error)
                if concerns(damage) { unattributed.append(KeychainDamagedItem(damage)) }
                continue
            }
            guard let attributes, contains(entry.itemClass, attributes), let key = key(forAccount: attributes.account)
            else { continue }
            let secret: SecretBytes?
            do {
                secret = try txn.secret(for: entry.itemID)
            } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
                throw ItemDamage(entry: entry, attributes: attributes, error: error)
            }
            guard let secret else { continue }
            if entry.protectionClass.isDeviceBound
                && !(destinationSecret.map { $0.secret == txn.deviceSecret?.secret } ?? false)
            {
                result.leftOnDevice += 1
                continue
            }
            var item = KeychainMigrationItem(
                key: key,
                value: Data(secret.copyBytes()),
                valueType: attributes.type,
                accessibility: entry.protectionClass,
                synchronizable: attributes.synchronizable,
                label: attributes.label,
                comment: attributes.comment
            )
            item.attributeDescription = attributes.itemDescription
            item.creator = attributes.creator == 0 ? nil : FourCharacterCode(rawValue: attributes.creator)
            item.generic = Data(attributes.generic)
            (item.isInvisible, item.isNegative) = (attributes.isInvisible, attributes.isNegative)
            items.append((entry.itemID, item))
        }
        return items
    }

    private func transformed(
        _ items: [(ItemID, KeychainMigrationItem)],
        _ transform: (KeychainMigrationItem) throws -> KeychainMigrationItem?,
        into result: inout KeychainMigrationResult
    ) throws -> [KeychainMigrationItem] {
        var out: [KeychainMigrationItem] = []
        for (_, item) in items {
            if let moved = try transform(item) { out.append(moved) } else { result.skipped.append(item.key) }
        }
        return out
    }

    /// Adds the items to this keychain's scope; a taken key is a conflict.
    private func insert(
        _ items: [KeychainMigrationItem],
        into txn: inout VaultTransaction,
        result: inout KeychainMigrationResult
    ) throws {
        var seen = Set<PrimaryKey>()
        for item in items {
            var attributes = try identifyingAttributes(for: item.key, synchronizable: item.synchronizable)
            let primaryKey = PrimaryKey(itemClass: itemClass.itemClass, attributes: attributes)
            guard seen.insert(primaryKey).inserted,
                try txn.item(identifiedBy: attributes, itemClass: itemClass.itemClass) == nil
            else {
                throw KeychainError.conflict("the destination already has an item for one of the keys migrated")
            }
            if item.synchronizable && item.accessibility.isDeviceBound {
                throw KeychainError.invalidParameter("a synchronizable item cannot be \(item.accessibility)")
            }
            (attributes.label, attributes.comment, attributes.type) = (item.label, item.comment, item.valueType)
            (attributes.itemDescription, attributes.creator) = (item.attributeDescription, item.creator?.rawValue ?? 0)
            (attributes.generic, attributes.isInvisible, attributes.isNegative) =
                (Array(item.generic), item.isInvisible, item.isNegative)
            (attributes.creationDate, attributes.modificationDate) = (txn.now, txn.now)
            try txn.set(
                ItemDraft(
                    id: ItemID(random: SystemRandom()),
                    itemClass: itemClass.itemClass,
                    protectionClass: item.accessibility,
                    attributes: attributes,
                    secret: SecretBytes(bytes: Array(item.value))
                )
            )
            result.migrated.append(item.key)
        }
    }
}
