// vault: typed keys, subscripts and Result-returning reads.

public import FoundationEssentials

/// A typed key, with an optional default returned when nothing is stored.
///
/// ```swift
/// extension KeychainKey where Value == Int {
///     static let launches = KeychainKey("launches", default: 0)
/// }
/// let count = try keychain.get(.launches)          // 0 until set
/// ```
public struct KeychainKey<Value: Codable & Sendable>: Sendable {
    /// The key's name.
    public let name: String
    /// What reads return when nothing is stored.
    public let defaultValue: Value?

    /// Creates a key.
    public init(_ name: String, default defaultValue: Value? = nil) {
        self.name = name
        self.defaultValue = defaultValue
    }
}

extension Keychain {
    /// A typed key (`Keychain.Key<Int>`).
    public typealias Key<Value: Codable & Sendable> = KeychainKey<Value>

    // MARK: - Typed keys

    /// The value of `key`, or its default when nothing is stored.
    public func get<T>(_ key: Key<T>) throws(KeychainError) -> T? {
        try get(key.name, as: T.self) ?? key.defaultValue
    }

    /// The value of `key` or its default; ``KeychainError/itemNotFound`` when there is neither.
    public func require<T>(_ key: Key<T>) throws(KeychainError) -> T {
        guard let value = try get(key) else { throw .itemNotFound }
        return value
    }

    /// Stores `value` under `key`; `nil` removes the item.
    public func set<T>(_ value: T?, for key: Key<T>) throws(KeychainError) {
        if let value { try set(value, forKey: key.name) } else { try remove(key.name) }
    }

    // MARK: - Result-returning reads

    /// ``get(_:as:)-50joc`` as a `Result`, for callers that pass outcomes along.
    public func result<T: Decodable>(_ key: String, as type: T.Type = T.self) -> Result<T?, KeychainError> {
        Result { () throws(KeychainError) in try get(key, as: T.self) }
    }

    /// ``get(_:)-(Key<T>)`` as a `Result`.
    public func result<T>(for key: Key<T>) -> Result<T?, KeychainError> {
        Result { () throws(KeychainError) in try get(key) }
    }

    // MARK: - Subscripts

    /// The string under `key`; assigning `nil` removes the item.
    ///
    /// Subscripts cannot throw: a failed read returns `nil`. A failed assignment is retried
    /// while the failure is another writer holding the lock (``KeychainError/lockTimeout``), and
    /// otherwise reported to ``onSetterFailure(_:)``'s handler, which by default writes one line
    /// to standard error (L-KC-16). Use ``get(_:as:)-50joc`` and ``set(_:forKey:)-372fz`` where a locked or
    /// damaged vault must be told apart from a missing item.
    public subscript(key: String) -> String? {
        get { (try? get(key, as: String.self)) ?? nil }
        nonmutating set { assign(newValue, forKey: key) }
    }

    /// The bytes under `key`; assigning `nil` removes the item. See ``subscript(_:)->String?``.
    public subscript(data key: String) -> Data? {
        get { (try? get(key, as: Data.self)) ?? nil }
        nonmutating set { assign(newValue, forKey: key) }
    }

    /// The value of a typed key (or its default); assigning `nil` removes the item. See ``subscript(_:)->String?``.
    public subscript<T>(key: Key<T>) -> T? {
        get { (try? get(key)) ?? key.defaultValue }
        nonmutating set { assign(newValue, forKey: key.name) }
    }

    /// A non-throwing setter's write (L-KC-16): retried after a lock timeout, reported when it fails.
    func assign<T: Encodable>(_ value: T?, forKey key: String) {
        var attempt = 1
        while true {
            do {
                if let value { try set(value, forKey: key) } else { try remove(key) }
                return
            } catch .lockTimeout where attempt < Self.setterAttempts {
                attempt += 1
            } catch {
                reportSetterFailure(error, forKey: key)
                return
            }
        }
    }
}
