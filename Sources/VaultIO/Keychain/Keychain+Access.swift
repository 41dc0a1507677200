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
        defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        if bytes.isEmpty && emptyValuePolicy == .refuse { throw .emptyValue }  // L-KC-7
        try store(SecretBytes(bytes: bytes), type: type, forKey: key)
    }

    /// Removes the item under `key`, and any copy of it stored in an older spelling of its key (L-KC-15).
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    public func remove(_ key: String) throws(KeychainError) -> Bool {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try keychainCall {
            try vault.write { txn in
                // Every item of the identity, older spellings included (L-KC-15): after a remove
                // (a sign-out, a revoked token) no other copy may answer for the key.
                var removed = false
                while let item = try txn.item(identifiedBy: identity, itemClass: itemClass.itemClass) {
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
    /// - Throws: ``KeychainError/locked`` when an item of a locked class is in the vault
    ///   (its attributes, and so its service, cannot be read).
    public func removeAll() throws(KeychainError) {
        try keychainCall {
            try vault.write { txn in
                for entry in txn.entries {
                    guard let attributes = try readableAttributes({ try txn.attributes(for: entry.itemID) }),
                        contains(entry.itemClass, attributes)
                    else { continue }
                    try txn.remove(id: entry.itemID)
                }
            }
        }
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
        defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        return try KeychainValueCodec.decode(bytes, type: type, as: T.self)
    }

    /// The string under `key` (KeychainAccess's `get`, SwiftKeychainWrapper's `string(forKey:)`).
    public func string(forKey key: String) throws(KeychainError) -> String? { try get(key, as: String.self) }

    /// The bytes under `key`, whatever their type.
    public func data(forKey key: String) throws(KeychainError) -> Data? { try get(key, as: Data.self) }

    /// Whether an item is stored under `key`. Decrypts attributes only.
    public func contains(_ key: String) throws(KeychainError) -> Bool {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try keychainCall {
            try vault.read { try $0.position(identifiedBy: identity, itemClass: itemClass.itemClass) != nil }
        }
    }

    /// The attributes of the item under `key`, without its value; `nil` when there is none.
    public func attributes(forKey key: String) throws(KeychainError) -> KeychainItem? {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try keychainCall {
            try vault.read { snapshot in
                guard let position = try snapshot.position(identifiedBy: identity, itemClass: itemClass.itemClass)
                else { return nil }
                return KeychainItem(
                    key: key,
                    entry: snapshot.index.entry(at: position),
                    attributes: try snapshot.attributes(at: position),
                    value: nil
                )
            }
        }
    }

    /// The keys of this keychain's scope, synchronizable items included, sorted.
    ///
    /// Items of another device are left out (see ``Vault/inventory()``).
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
    /// - Parameter includingValues: Whether to decrypt the values too; by default only attributes are.
    /// - Throws: As ``allKeys()``.
    ///
    /// Spec: Spec/library-semantics.md, "Keychain API decisions" (L-KC-11).
    public func allItems(includingValues: Bool = false) throws(KeychainError) -> [KeychainItem] {
        try keychainCall {
            try vault.read { snapshot in
                var items: [KeychainItem] = []
                for position in 0..<snapshot.index.count {
                    let entry = snapshot.index.entry(at: position)
                    guard let attributes = try readableAttributes({ try snapshot.attributes(at: position) }),
                        contains(entry.itemClass, attributes), let key = key(forAccount: attributes.account)
                    else { continue }
                    let value = includingValues ? Data(try snapshot.secret(at: position).copyBytes()) : nil
                    items.append(KeychainItem(key: key, entry: entry, attributes: attributes, value: value))
                }
                return items.sorted(by: KeychainItem.creationOrder)
            }
        }
    }

    // MARK: - Helpers

    /// Writes a secret of `type` under `key`, keeping an existing item's identity.
    func store(_ secret: SecretBytes, type: UInt32, forKey key: String) throws(KeychainError) {
        try checkWritable()
        let identifying = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        try keychainCall {
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
    private func load(_ key: String) throws(KeychainError) -> (SecretBytes, UInt32)? {
        let identity = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try keychainCall {
            try vault.read { snapshot in
                guard let position = try snapshot.position(identifiedBy: identity, itemClass: itemClass.itemClass)
                else { return nil }
                return (try snapshot.secret(at: position), try snapshot.attributes(at: position).type)
            }
        }
    }

    /// Attributes of an item while scanning: `nil` for another device's items (skipped), an error when locked.
    private func readableAttributes(_ body: () throws -> ItemAttributes?) throws -> ItemAttributes? {
        do {
            return try body()
        } catch let error as VaultFormatError where error.code == .foreignDevice {
            return nil
        }
    }
}
