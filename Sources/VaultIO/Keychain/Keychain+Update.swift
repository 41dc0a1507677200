// vault: atomic read-modify-write of one key, and removing a whole access group's items.

import Glibc
import VaultFormat

extension Keychain {
    // MARK: - Read-modify-write

    /// Reads the value under `key`, passes it to `transform`, and stores what it returns, in one
    /// write transaction.
    ///
    /// The read happens under the vault's write lock, on the newest generation on disk, so no
    /// other thread or process can write between the read and the write: concurrent updates of a
    /// counter never lose an increment. Returning `nil` removes the item; returning the value
    /// unchanged still writes it (and sets its modification date).
    ///
    /// ```swift
    /// try keychain.update("launches", as: Int.self) { ($0 ?? 0) + 1 }
    /// try keychain.update("token", as: String.self) { _ in nil }          // remove
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - type: The value's type.
    ///   - transform: Gets the stored value (`nil` when there is none) and returns the new one, or
    ///     `nil` to remove the item. It runs while the write lock is held: keep it short.
    /// - Returns: The value stored (`nil` when the item was removed or never existed).
    /// - Throws: As ``get(_:as:)-50joc`` and ``set(_:forKey:)-372fz``; the transform's error, as
    ///   ``KeychainError/invalidParameter(_:)`` unless it is a ``KeychainError``. When anything
    ///   throws, nothing is written.
    @discardableResult
    public func update<T: Codable>(
        _ key: String,
        as type: T.Type = T.self,
        _ transform: (T?) throws -> T?
    ) throws(KeychainError) -> T? {
        try checkWritable()
        let identifying = try identifyingAttributes(for: key, synchronizable: isSynchronizable)
        return try call {
            try vault.write { txn in
                let existing = try txn.item(identifiedBy: identifying, itemClass: itemClass.itemClass)
                var old: T?
                if let existing, let secret = try txn.secret(for: existing.id) {
                    var bytes = secret.copyBytes()
                    defer { wipe(&bytes) }
                    old = try KeychainValueCodec.decode(bytes, type: existing.attributes.type, as: T.self)
                }
                guard let new = try transform(old) else {
                    if let existing { try txn.remove(id: existing.id) }
                    return nil
                }
                var (bytes, valueType) = try KeychainValueCodec.encode(new)
                defer { wipe(&bytes) }
                if bytes.isEmpty && emptyValuePolicy == .refuse { throw KeychainError.emptyValue }  // L-KC-7
                try put(SecretBytes(bytes: bytes), type: valueType, identifying: identifying, in: &txn)
                return new
            }
        }
    }

    /// Updates a typed key: `transform` gets the stored value or the key's default.
    ///
    /// ```swift
    /// try keychain.update(.launches) { ($0 ?? 0) + 1 }
    /// ```
    @discardableResult
    public func update<T>(_ key: Key<T>, _ transform: (T?) throws -> T?) throws(KeychainError) -> T? {
        try update(key.name, as: T.self) { try transform($0 ?? key.defaultValue) }
    }

    // MARK: - Removing across classes

    /// Removes every item, generic and internet passwords alike, of one access group (and key
    /// prefix), synchronizable or not, in one transaction: an app's "sign out everywhere".
    ///
    /// ```swift
    /// try Keychain.removeAll(accessGroup: "com.example.shared", in: vault)
    /// ```
    ///
    /// A record whose attributes are damaged cannot be told to be in the group: it is left, and
    /// reported to `handler` (L-KC-17).
    ///
    /// - Parameters:
    ///   - accessGroup: The access group; `nil` is the default group. Other groups are untouched.
    ///   - keyPrefix: When set, only items whose account starts with the prefix and a dot.
    ///   - vault: The vault.
    ///   - handler: Gets each damaged record left; `nil` writes a line to standard error for each.
    /// - Returns: How many items were removed.
    /// - Throws: ``KeychainError/locked`` when an item of a locked class is in the vault (its
    ///   attributes, and so its access group, cannot be read); nothing is removed then.
    @discardableResult
    public static func removeAll(
        accessGroup: String? = nil,
        keyPrefix: String? = nil,
        in vault: Vault,
        onDamagedItem handler: DamagedItemHandler? = nil
    ) throws(KeychainError) -> Int {
        let (removed, unattributed) = try keychainCall {
            try vault.write { txn in
                try txn.removeItems(
                    reportingDamage: { _ in true },
                    where: { _, attributes in
                        attributes.accessGroup == (accessGroup ?? "")
                            && (keyPrefix.map({ attributes.account.hasPrefix($0 + ".") }) ?? true)
                    }
                )
            }
        }
        let group = String(reflecting: accessGroup ?? "")
        for damaged in unattributed { reportDamage(damaged, to: handler, by: "removeAll of access group \(group)") }
        return removed
    }
}
