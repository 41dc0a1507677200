// vault: reading and writing keychain items: set, get, remove, contains, removeAll, listings.

public import FoundationEssentials
import Glibc
import VaultFormat

extension Keychain {
    // MARK: - Writing

    /// Stores `value` under `key`, replacing any value there.
    ///
    /// An existing item keeps its persistent reference, creation date, label and
    /// comment (unless this keychain sets them); its record is sealed again under
    /// ``accessibility``, so calling `set` from a keychain with another
    /// accessibility moves the item to that class, re-encrypting that item only.
    ///
    /// ```swift
    /// try keychain.set(42, forKey: "launches")
    /// try keychain.set(Credentials(user: "a", token: "t"), forKey: "login")   // any Codable, as JSON
    /// ```
    ///
    /// - Throws: ``KeychainError/emptyKey``; ``KeychainError/emptyValue`` for an empty string or data
    ///   unless ``emptyValues(_:)`` allows it; ``KeychainError/invalidParameter(_:)`` for a
    ///   synchronizable `…ThisDeviceOnly` item; ``KeychainError/locked``; ``KeychainError/lockTimeout``;
    ///   ``KeychainError/io(step:errno:)``.
    public func set<T: Encodable>(_ value: T, forKey key: String) throws(KeychainError) {
        var (bytes, type) = try KeychainValueCodec.encode(value)
        defer { wipe(&bytes) }
        if bytes.isEmpty && emptyValuePolicy == .refuse { throw .emptyValue }  // L-KC-7
        try store(SecretBytes(bytes: bytes), type: type, forKey: key)
    }

    /// Removes the item under `key`, and any copy of it stored in an older spelling of its key (L-KC-15).
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    public func remove(_ key: String) throws(KeychainError) -> Bool {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try call {
            try vault.write { txn in
                // Every item of the identity, older spellings included (L-KC-15): after a remove
                // (a sign-out, a revoked token) no other copy may answer for the key.
                var removed = false
                for item in try txn.items(identifiedBy: identity, itemClass: itemClass.itemClass) {
                    removed = try txn.remove(id: item.id) || removed
                }
                return removed
            }
        }
    }

    /// Removes every item of this keychain's scope: its service (or internet location),
    /// access group and key prefix, synchronizable items included. Other services and
    /// access groups are untouched. One transaction.
    ///
    /// An item whose secret is damaged but whose attributes open is removed like any other (its
    /// secret is never decrypted). A record of this item class whose attributes are damaged cannot
    /// be told to be in scope: it is left, and reported to ``onDamagedItem(_:)`` so that the app
    /// can remove it by ID (L-KC-17).
    ///
    /// - Throws: ``KeychainError/locked`` when an item of a locked class is in the vault
    ///   (its attributes, and so its service, cannot be read).
    public func removeAll() throws(KeychainError) {
        let unattributed = try call {
            try vault.write { txn in
                try txn.removeItems(reportingDamage: concerns, where: { contains($0.itemClass, $1) }).unattributed
            }
        }
        unattributed.forEach(reportDamage)
    }

    // MARK: - Reading

    /// The value under `key`, decoded as `T`; `nil` when there is none.
    ///
    /// ```swift
    /// let token: String? = try keychain.get("token")
    /// let launches = try keychain.get("launches", as: Int.self)
    /// ```
    ///
    /// - Throws: ``KeychainError/conversion(expected:stored:)`` when the value is of another type;
    ///   ``KeychainError/locked``, ``KeychainError/otherDevice``, ``KeychainError/corrupt(what:)``.
    public func get<T: Decodable>(_ key: String, as type: T.Type = T.self) throws(KeychainError) -> T? {
        guard let (secret, type) = try load(key) else { return nil }
        var bytes = secret.copyBytes()
        defer { wipe(&bytes) }
        return try KeychainValueCodec.decode(bytes, type: type, as: T.self)
    }

    /// The string under `key` (KeychainAccess's `get`, SwiftKeychainWrapper's `string(forKey:)`).
    public func string(forKey key: String) throws(KeychainError) -> String? { try get(key, as: String.self) }

    /// The bytes under `key`, whatever their type.
    public func data(forKey key: String) throws(KeychainError) -> Data? { try get(key, as: Data.self) }

    /// Whether an item is stored under `key`. Decrypts attributes only.
    public func contains(_ key: String) throws(KeychainError) -> Bool {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try call {
            try vault.read { try $0.location(identifiedBy: identity, itemClass: itemClass.itemClass) != nil }
        }
    }

    /// The attributes of the item under `key`, without its value; `nil` when there is none.
    public func attributes(forKey key: String) throws(KeychainError) -> KeychainItem? {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try call {
            try vault.read { snapshot in
                guard let location = try snapshot.location(identifiedBy: identity, itemClass: itemClass.itemClass)
                else { return nil }
                return KeychainItem(
                    key: key,
                    entry: location.entry,
                    attributes: try snapshot.item(at: location, includeSecret: false).attributes,
                    value: nil
                )
            }
        }
    }

    /// The keys of this keychain's scope, synchronizable items included, sorted.
    ///
    /// Items of another device are left out (see ``Vault/inventory()``). A damaged record is
    /// left out and reported to ``onDamagedItem(_:)``; it does not fail the call (L-KC-17).
    ///
    /// - Throws: ``KeychainError/locked`` when an item of a locked class is in the vault.
    public func allKeys() throws(KeychainError) -> [String] {
        try allItems().map(\.key).sorted()
    }

    /// The items of this keychain's scope, synchronizable items included, in creation order.
    ///
    /// Items are ordered by creation date; items created in the same millisecond (one migration,
    /// one transaction) by key, then non-synchronizable first, then by persistent reference. The
    /// order is the same on every call and in every process (CRDKeychain's users rely on it).
    ///
    /// A damaged record costs that item only: it is left out and reported to
    /// ``onDamagedItem(_:)`` (by default, a line on standard error), and the other items are
    /// returned. Without values, a record counts as damaged when its attributes do not open; with
    /// values, also when its secret does not (L-KC-17).
    ///
    /// - Parameter includingValues: Whether to decrypt the values too; by default only attributes are.
    /// - Throws: As ``allKeys()``.
    ///
    /// Spec: Spec/library-semantics.md, "Keychain API decisions" (L-KC-11, L-KC-17).
    public func allItems(includingValues: Bool = false) throws(KeychainError) -> [KeychainItem] {
        let (items, damaged) = try call {
            try vault.read { snapshot in
                var items: [KeychainItem] = []
                var damaged: [KeychainDamagedItem] = []
                for position in 0..<(try snapshot.index.count) {
                    do {
                        guard let item = try listedItem(at: position, in: snapshot, includingValue: includingValues)
                        else { continue }
                        items.append(item)
                    } catch let damage as ItemDamage {
                        if concerns(damage) { damaged.append(KeychainDamagedItem(damage)) }
                    }
                }
                return (items.sorted(by: KeychainItem.creationOrder), damaged)
            }
        }
        damaged.forEach(reportDamage)
        return items
    }

    /// The item at `position` when it is in this keychain's scope; `nil` for another scope's or
    /// another device's. Throws ``ItemDamage`` for a damaged record, any other error as it is.
    private func listedItem(at position: Int, in snapshot: VaultSnapshot, includingValue: Bool) throws -> KeychainItem?
    {
        let decoded: DecodedItem
        do {
            decoded = try snapshot.item(at: position, includeSecret: false)
        } catch let error as VaultFormatError where error.code == .foreignDevice {
            return nil
        }
        guard contains(decoded.entry.itemClass, decoded.attributes),
            let key = key(forAccount: decoded.attributes.account)
        else { return nil }
        var value: Data?
        if includingValue {
            // Opens the record again, secret included: the damage then carries the attributes.
            let secret = try snapshot.item(at: position, includeSecret: true).secret
            value = secret.map { Data($0.copyBytes()) }
        }
        return KeychainItem(key: key, entry: decoded.entry, attributes: decoded.attributes, value: value)
    }

    // MARK: - Helpers

    /// Writes a secret of `type` under `key`, keeping an existing item's identity.
    func store(_ secret: SecretBytes, type: UInt32, forKey key: String) throws(KeychainError) {
        try checkWritable()
        let identifying = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        try call {
            try vault.write { txn in try put(secret, type: type, identifying: identifying, in: &txn) }
        }
    }

    /// Refuses a keychain configuration no item can be written with.
    func checkWritable() throws(KeychainError) {
        if isSynchronizable && accessibility.isDeviceBound {
            throw .invalidParameter("a synchronizable item cannot be \(accessibility)")
        }
    }

    /// Writes a secret of `type` for the item `identifying` names, inside `txn`, keeping an existing
    /// item's identity, creation date and the attributes this keychain does not set.
    func put(
        _ secret: SecretBytes,
        type: UInt32,
        identifying: ItemAttributes,
        in txn: inout VaultTransaction
    ) throws {
        try txn.upsert(itemClass.itemClass, identity: identifying, secret: secret, protectionClass: accessibility) {
            applyConfiguredAttributes(to: &$0, valueType: type)
        }
    }

    /// The secret and type code under `key`.
    ///
    /// A damaged record of the key throws ``ItemDamage``, so that the error names the item
    /// (``KeychainError/corrupt(what:)`` with its ID, L-KC-17).
    private func load(_ key: String) throws(KeychainError) -> (SecretBytes, UInt32)? {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try call { try vault.read { snapshot in try load(identity, from: snapshot) } }
    }

    /// ``keychainCall(_:)`` for this keychain's vault: a device-bound item met on a vault that has
    /// no device secret at all is `deviceSecretRequired`, what a write says, not "another
    /// device's" (L-ERR-3); with a device secret that does not match, it stays `otherDevice`.
    func call<T>(_ body: () throws -> T) throws(KeychainError) -> T {
        do {
            return try keychainCall(body)
        } catch {
            if case .otherDevice = error, vault.deviceSecret == nil { throw .deviceSecretRequired }
            throw error
        }
    }

    /// The secret and type code of the item `identity` names in `snapshot`, or `nil`.
    private func load(_ identity: ItemAttributes, from snapshot: VaultSnapshot) throws -> (SecretBytes, UInt32)? {
        let location: ItemLocation?
        do {
            location = try snapshot.location(identifiedBy: identity, itemClass: itemClass.itemClass)
        } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
            throw Self.namingDamage(error, of: identity, itemClass: itemClass.itemClass, in: snapshot)
        }
        guard let location else { return nil }
        let item = try snapshot.item(at: location, includeSecret: true)
        guard let secret = item.secret else { return nil }
        return (secret, item.attributes.type)
    }

    /// ``ItemDamage`` for the first record with `identity`'s lookup tag whose attributes do not open,
    /// or `error` when there is none.
    static func namingDamage(
        _ error: VaultFormatError,
        of identity: ItemAttributes,
        itemClass: ItemClass,
        in snapshot: VaultSnapshot
    ) -> any Error {
        let key = PrimaryKey(itemClass: itemClass, attributes: identity.canonicalIdentity(for: itemClass))
        for location in (try? snapshot.locations(ofTag: snapshot.keys.lookupTag(key))) ?? [] {
            do {
                _ = try snapshot.item(at: location, includeSecret: false)
            } catch let damage as ItemDamage {
                return damage
            } catch {
                continue
            }
        }
        return error
    }
}
