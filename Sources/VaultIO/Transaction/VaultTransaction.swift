// vault: the changes of one write, around VaultFormat's VaultWriter.

public import VaultFormat

/// The changes made inside ``Vault/write(_:)-8yjd9``: adds, replacements and removals
/// of items in the next generation of the vault.
///
/// A transaction starts from the newest generation on disk, read under the
/// write lock. Nothing reaches the file until the `write` body returns; then
/// every change commits together, or, when the body throws, none does.
///
/// ```swift
/// try vault.write { txn in
///     if let item = try txn.item(for: key) {
///         try txn.remove(id: item.id, expecting: .version(item.version))
///     }
///     try txn.set(draft)
/// }
/// ```
public struct VaultTransaction: Sendable {
    /// What a change expects of the item it touches, checked when the change is made.
    public enum ExpectedVersion: Hashable, Sendable {
        /// No expectation.
        case any
        /// The item must not exist.
        case absent
        /// The item must exist with this version (the generation it was last written in).
        case version(UInt64)
    }

    /// A stored item's entry and decrypted attributes.
    public struct Item: Sendable {
        /// The index entry: ID, classes, version and sizes.
        public let entry: IndexEntry
        /// The decrypted attributes.
        public let attributes: ItemAttributes
        /// The item's identifier.
        public var id: ItemID { entry.itemID }
        /// The generation in which the item was last written.
        public var version: UInt64 { entry.version }
    }

    var writer: VaultWriter
    /// The time of this write, milliseconds since the Unix epoch, used for deletion records.
    public let now: Int64
    /// Whether any change was made; a write without changes does not touch the file.
    var hasChanges = false
    /// Whether the keyslots changed (so the ``Vault`` re-checks which slot it opened with).
    var keyslotsChanged = false
    /// Whether ``rekey(_:)`` replaced the master key (so the ``Vault`` adopts the new keys).
    var rekeyed = false
    /// The key-encryption keys of keyslots made or rewrapped in this transaction, so that a rekey
    /// can rewrap them without their credentials (which the transaction does not keep). Dropped
    /// with the transaction.
    var newSlotKEKs: [Keyslot: KeyEncryptionKey] = [:]
    /// Allows removals and replacements that leave only TPM2 keyslots to open the vault
    /// (Spec/tpm2.md, L-TPM-2). `false` by default: a cleared TPM would then lock everyone out.
    public var allowsTPM2Only = false
    /// Argon2id cost and floor for new password keyslots, from the vault's configuration.
    let kdf: KDFParameters
    let kdfFloor: KDFFloor

    /// The header this transaction started from, for rules that compare before and after
    /// (Spec/tpm2.md L-TPM-2).
    let headerAtStart: VaultHeader

    init(writer: VaultWriter, now: Int64, kdf: KDFParameters = .default, kdfFloor: KDFFloor = .enforced) {
        self.writer = writer
        self.headerAtStart = writer.header
        self.now = now
        self.kdf = kdf
        self.kdfFloor = kdfFloor
    }

    /// The generation this transaction writes (one more than the one it read).
    public var generation: UInt64 { writer.header.generation }

    /// The number of items in the new generation, counting this transaction's changes.
    public var count: Int { writer.count }

    /// The entries of the new generation, unordered.
    ///
    /// - Throws: Format 3: a damaged node of the trees, which this reads whole; the file's read error.
    public var entries: [IndexEntry] { get throws { try writer.entries } }

    // MARK: - Reading

    /// The entry of item `id`, if present.
    ///
    /// - Throws: Format 3, for an item this transaction has not looked up by its primary key: a
    ///   damaged node of the trees, which this reads whole; the file's read error.
    public func entry(for id: ItemID) throws -> IndexEntry? { try writer.entry(for: id) }

    /// The item with `primaryKey`, including changes made earlier in this transaction.
    ///
    /// - Throws: ``ItemDamage`` when a record with a matching lookup tag is damaged;
    ///   ``VaultFormatError`` when one cannot be decrypted here (`keyUnavailable`, `foreignDevice`).
    public func item(for primaryKey: PrimaryKey) throws -> Item? {
        let id: ItemID?
        do {
            id = try writer.itemID(for: primaryKey)
        } catch {
            throw namingDamage(error, for: primaryKey)
        }
        guard let id, let record = try writer.record(for: id) else { return nil }
        do {
            let attributes = try RecordCodec.openCheckedAttributes(
                record.bytes[...],
                entry: record.entry,
                vaultID: writer.header.vaultID,
                keys: writer.keys
            )
            return Item(entry: record.entry, attributes: attributes)
        } catch  where ItemDamage.isDamage(error) {
            // A record of domain 0 that claims a group with a key domain (R2-GRP-6), found by its tag.
            throw ItemDamage(entry: record.entry, attributes: nil, error: error)
        }
    }

    /// The item with `id`, including changes made earlier in this transaction, if present.
    ///
    /// - Throws: As ``attributes(for:)``.
    public func item(id: ItemID) throws -> Item? {
        guard let entry = try entry(for: id), let attributes = try attributes(for: id) else { return nil }
        return Item(entry: entry, attributes: attributes)
    }

    /// The decrypted attributes of item `id`, if present.
    ///
    /// - Throws: ``VaultFormatError`` (`keyUnavailable`, `foreignDevice`, `recordCorrupt`).
    public func attributes(for id: ItemID) throws -> ItemAttributes? {
        try openRecord(id, RecordCodec.openCheckedAttributes)
    }

    /// The device secret the vault was opened with, if any.
    var deviceSecret: DeviceSecret? { writer.keys.deviceSecret }

    /// The secret of item `id`, if present.
    ///
    /// - Throws: ``VaultFormatError`` (`keyUnavailable`, `foreignDevice`, `recordCorrupt`).
    public func secret(for id: ItemID) throws -> SecretBytes? {
        try openRecord(id, RecordCodec.openSecret)
    }

    /// Item `id`'s record opened by `open` (a ``RecordCodec`` reader) with this generation's
    /// vault ID and keys, or `nil` when there is no such item.
    private func openRecord<T>(
        _ id: ItemID,
        _ open: (ArraySlice<UInt8>, IndexEntry, [UInt8], VaultKeys) throws(VaultFormatError) -> T
    ) throws -> T? {
        guard let record = try writer.record(for: id) else { return nil }
        return try open(record.bytes[...], record.entry, writer.header.vaultID, writer.keys)
    }

    // MARK: - Changing

    /// Adds an item, or replaces the item with the same ``ItemDraft/id``.
    ///
    /// - Parameters:
    ///   - draft: The item; its record is sealed with a fresh nonce at ``generation``.
    ///   - expected: What the item with `draft.id` must be now.
    /// - Throws: ``VaultIOError/Code/conflict`` when `expected` does not hold;
    ///   ``VaultFormatError`` `invalidParameter` when another item has the same
    ///   primary key (R-IDX-5), `limit`, or `keyUnavailable`.
    ///
    /// In a 1.1 vault a device-bound item is stored under its device-tagged ID (R11-DEV-1),
    /// which may differ from `draft.id`; look it up by primary key afterwards.
    public mutating func set(_ draft: ItemDraft, expecting expected: ExpectedVersion = .any) throws {
        try check(expected, for: draft.id)
        if draft.protectionClass == .whenPasscodeSetThisDeviceOnly && !hasPasswordKeyslot {
            throw VaultIOError(
                .protectionUnavailable,
                reason: "whenPasscodeSetThisDeviceOnly items need a vault with a password keyslot"
            )
        }
        // L-PC-5: a synchronizable item cannot be bound to this device.
        if draft.attributes.synchronizable && draft.protectionClass.isDeviceBound {
            throw VaultFormatError(
                .invalidParameter,
                "a synchronizable item cannot be \(draft.protectionClass)"
            )
        }
        // R11-DEV-1: in a 1.1 vault a device-bound item is stored under its device-tagged ID.
        do {
            try writer.put(draft, now: now)
        } catch {
            throw namingDamage(error, for: draft.primaryKey)
        }
        hasChanges = true
    }

    /// Removes item `id`, leaving a deletion record (R-DEL-1).
    ///
    /// - Returns: Whether the item existed.
    /// - Throws: ``VaultIOError/Code/conflict`` when `expected` does not hold.
    @discardableResult
    public mutating func remove(id: ItemID, expecting expected: ExpectedVersion = .any) throws -> Bool {
        try check(expected, for: id)
        let removed = try writer.remove(id, now: now)
        if removed { hasChanges = true }
        return removed
    }

    func check(_ expected: ExpectedVersion, for id: ItemID) throws {
        if expected == .any { return }
        let actual = try writer.entry(for: id)?.version
        switch (expected, actual) {
        case (.any, _), (.absent, nil):
            return
        case (.version(let wanted), let actual?) where wanted == actual:
            return
        default:
            let found = actual.map { "version \($0)" } ?? "no item"
            throw VaultIOError(.conflict, reason: "item \(id) changed: expected \(expected), found \(found)")
        }
    }
}

extension VaultTransaction.ExpectedVersion: CustomStringConvertible {
    public var description: String {
        switch self {
        case .any: "any version"
        case .absent: "no item"
        case .version(let version): "version \(version)"
        }
    }
}
