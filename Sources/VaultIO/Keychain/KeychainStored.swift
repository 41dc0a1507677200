// vault: a property wrapper for one typed keychain key, in the manner of @AppStorage.

/// A property backed by one keychain item.
///
/// ```swift
/// struct Session {
///     @KeychainStored("token", keychain: .init(service: "com.example", vault: vault))
///     var token: String?
/// }
/// session.token = "abc"        // stored
/// session.token = nil          // removed
/// try session.$token.get()     // reads that throw on a locked or damaged vault
/// ```
///
/// Like `@AppStorage`, the wrapped value cannot throw: a failed read gives the
/// key's default (or `nil`). A failed write is never dropped without a trace: it is
/// retried after a lock timeout and otherwise reported to the keychain's
/// ``Keychain/onSetterFailure(_:)`` handler (L-KC-16). The projected value
/// (`$token`) is the wrapper itself, whose ``get()`` and ``set(_:)`` throw.
@propertyWrapper
public struct KeychainStored<Value: Codable & Sendable>: Sendable {
    /// The keychain the item lives in.
    public let keychain: Keychain
    /// The item's key and default.
    public let key: KeychainKey<Value>

    /// Backs a property with `key` in `keychain`.
    public init(_ key: KeychainKey<Value>, keychain: Keychain) {
        self.key = key
        self.keychain = keychain
    }

    /// Backs a property with the key `name` in `keychain`.
    public init(_ name: String, default defaultValue: Value? = nil, keychain: Keychain) {
        self.init(KeychainKey(name, default: defaultValue), keychain: keychain)
    }

    /// The stored value, or the key's default; assigning `nil` removes the item.
    public var wrappedValue: Value? {
        get { keychain[key] }
        nonmutating set { keychain.assign(newValue, forKey: key.name) }
    }

    /// The wrapper, for throwing access.
    public var projectedValue: KeychainStored<Value> { self }

    /// Reads the value (or the default), throwing when the vault is locked or damaged.
    public func get() throws(KeychainError) -> Value? { try keychain.get(key) }

    /// Stores `value`; `nil` removes the item.
    public func set(_ value: Value?) throws(KeychainError) { try keychain.set(value, for: key) }
}
