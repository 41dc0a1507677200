// vault: async Keychain calls, which wait for the write lock without blocking a cooperative thread.

import FoundationEssentials

extension Keychain {
    /// ``get(_:as:)`` on a thread of its own.
    ///
    /// Spec: Spec/library-semantics.md (L-ASYNC-1).
    public func get<T: Decodable & Sendable>(_ key: String, as type: T.Type = T.self) async throws(KeychainError) -> T?
    {
        try await keychainAsync { () throws(KeychainError) in try self.get(key, as: type) }
    }

    /// ``set(_:forKey:)`` on a thread of its own.
    public func set<T: Encodable & Sendable>(_ value: T, forKey key: String) async throws(KeychainError) {
        try await keychainAsync { () throws(KeychainError) in try self.set(value, forKey: key) }
    }

    /// ``remove(_:)`` on a thread of its own.
    @discardableResult
    public func remove(_ key: String) async throws(KeychainError) -> Bool {
        try await keychainAsync { () throws(KeychainError) in try self.remove(key) }
    }

    /// ``update(_:as:_:)`` on a thread of its own; `transform` runs there, under the write lock.
    @discardableResult
    public func update<T: Codable & Sendable>(
        _ key: String,
        as type: T.Type = T.self,
        _ transform: @escaping @Sendable (T?) throws -> T?
    ) async throws(KeychainError) -> T? {
        try await keychainAsync { () throws(KeychainError) in try self.update(key, as: type, transform) }
    }

    private func keychainAsync<R: Sendable>(_ body: @escaping @Sendable () throws(KeychainError) -> R)
        async throws(KeychainError) -> R
    {
        do {
            return try await onOwnThread { try body() }
        } catch {
            throw KeychainError(error)
        }
    }
}
