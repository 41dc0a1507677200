// vault: a property wrapper for one typed keychain key, in the manner of @AppStorage.

/// A property backed by one keychain item.
///
/// The wrapper's type is the property's type, as with `@AppStorage`: an optional property
/// reads `nil` until a value is stored, and assigning `nil` removes the item; a non-optional
/// property has a default, which it reads while nothing is stored.
///
/// ```swift
/// struct Settings: Sendable {
///     @KeychainStored<String?> var token: String?
///     @KeychainStored<String> var mode: String
///
///     init(keychain: Keychain) {
///         _token = KeychainStored("token", keychain: keychain)
///         _mode = KeychainStored("mode", default: "standard", keychain: keychain)
///     }
/// }
/// let settings = Settings(keychain: keychain)
/// settings.token = "abc"       // stored
/// settings.token = nil         // removed
/// settings.mode = "compact"    // stored; "standard" while nothing is
/// try settings.$token.get()    // reads that throw on a locked or damaged vault
/// ```
///
/// Like `@AppStorage`, the wrapped value cannot throw: a failed read gives the
/// default (or `nil`). A failed write is never dropped without a trace: it is
/// retried after a lock timeout and otherwise reported to the keychain's
/// ``Keychain/onSetterFailure(_:)`` handler (L-KC-16). The projected value
/// (`$token`) is the wrapper itself, whose ``get()``, ``set(_:)`` and ``remove()`` throw.
///
/// **Sharing across tasks.** The wrapper is `Sendable` and its setter is nonmutating: a
/// `Sendable` struct of wrapped properties is shared by every task, and written through a
/// `let`. A `final class` that conforms to `Sendable` holds such a struct, or the wrapper
/// itself, as a `let` (`let mode = KeychainStored("mode", default: "standard", keychain: k)`,
/// then `mode.wrappedValue`): Swift stores a wrapped property's wrapper in a `var`, which it
/// refuses in a `Sendable` class for every property wrapper (L-KC-18).
@propertyWrapper
public struct KeychainStored<Value: Codable & Sendable>: Sendable {
    /// The keychain the item lives in.
    public let keychain: Keychain
    /// The item's key.
    public let name: String
    /// What a read gives while nothing is stored, or when the read fails: `nil` for an
    /// optional property without a default.
    public let defaultValue: Value

    /// Backs a non-optional property with the key `name` in `keychain`; reads give
    /// `defaultValue` while nothing is stored.
    public init(_ name: String, default defaultValue: Value, keychain: Keychain) {
        self.name = name
        self.defaultValue = defaultValue
        self.keychain = keychain
    }

    /// Backs an optional property with the key `name` in `keychain`.
    public init<Wrapped>(_ name: String, default defaultValue: Wrapped? = nil, keychain: Keychain)
    where Value == Wrapped? {
        self.name = name
        self.defaultValue = defaultValue
        self.keychain = keychain
    }

    /// Backs an optional property with the typed `key` (its name and default) in `keychain`.
    public init<Wrapped>(_ key: KeychainKey<Wrapped>, keychain: Keychain) where Value == Wrapped? {
        self.init(key.name, default: key.defaultValue, keychain: keychain)
    }

    /// The stored value, or the default; assigning `nil` to an optional property removes the item.
    public var wrappedValue: Value {
        get { (try? get()) ?? defaultValue }
        nonmutating set {
            if let optional = Value.self as? any OptionalKeychainValue.Type {
                assign(newValue, unwrappingAs: optional)
            } else {
                keychain.assign(newValue, forKey: name)
            }
        }
    }

    /// The wrapper, for throwing access.
    public var projectedValue: KeychainStored<Value> { self }

    /// Reads the value (or the default), throwing when the vault is locked or damaged.
    public func get() throws(KeychainError) -> Value {
        if let optional = Value.self as? any OptionalKeychainValue.Type { return try read(unwrappingAs: optional) }
        return try keychain.get(name, as: Value.self) ?? defaultValue
    }

    /// Stores `value`; `nil` (of an optional property) removes the item.
    public func set(_ value: Value) throws(KeychainError) {
        if let optional = Value.self as? any OptionalKeychainValue.Type {
            try write(value, unwrappingAs: optional)
        } else {
            try keychain.set(value, forKey: name)
        }
    }

    /// Removes the item, so that reads give the default again; `false` when there was none.
    @discardableResult
    public func remove() throws(KeychainError) -> Bool { try keychain.remove(name) }

    // An optional property stores its wrapped value in that type's encoding (L-KC-4): an
    // `Optional<String>` decoded as such would be read as JSON.

    private func read<OptionalValue: OptionalKeychainValue>(unwrappingAs _: OptionalValue.Type) throws(KeychainError)
        -> Value
    {
        guard let stored = try keychain.get(name, as: OptionalValue.Wrapped.self) else { return defaultValue }
        return OptionalValue(wrapping: stored) as! Value
    }

    private func write<OptionalValue: OptionalKeychainValue>(_ value: Value, unwrappingAs _: OptionalValue.Type)
        throws(KeychainError)
    {
        if let wrapped = (value as! OptionalValue).unwrapped {
            try keychain.set(wrapped, forKey: name)
        } else {
            try keychain.remove(name)
        }
    }

    private func assign<OptionalValue: OptionalKeychainValue>(_ value: Value, unwrappingAs _: OptionalValue.Type) {
        keychain.assign((value as! OptionalValue).unwrapped, forKey: name)
    }
}

/// `Optional` of a storable type: the property type whose `nil` means "no item".
protocol OptionalKeychainValue {
    associatedtype Wrapped: Codable
    var unwrapped: Wrapped? { get }
    init(wrapping: Wrapped)
}

extension Optional: OptionalKeychainValue where Wrapped: Codable {
    var unwrapped: Wrapped? { self }
    init(wrapping value: Wrapped) { self = .some(value) }
}
