// vault: async opening, reading and writing, which wait without blocking a cooperative thread.

import VaultFormat

extension Vault {
    /// Opens an existing vault, as ``init(path:credentials:configuration:)`` does, with the key
    /// derivation on a thread of its own.
    ///
    /// ```swift
    /// let vault = try await Vault.open(path: path, credentials: .password(passphrase))
    /// let count = try await vault.read { $0.index.count }
    /// try await vault.write { try $0.set(draft) }
    /// ```
    ///
    /// Spec: Spec/library-semantics.md (L-ASYNC-1).
    public static func open(
        path: String,
        credentials: Credentials,
        configuration: VaultConfiguration = VaultConfiguration()
    ) async throws -> Vault {
        try await onOwnThread { try Vault(path: path, credentials: credentials, configuration: configuration) }
    }

    /// ``read(_:)`` on a thread of its own.
    public func read<T: Sendable>(_ body: @escaping @Sendable (VaultSnapshot) throws -> T) async throws -> T {
        try await onOwnThread { try self.read(body) }
    }

    /// ``write(_:)`` on a thread of its own: the wait for other writers (up to
    /// ``VaultConfiguration/lockTimeout``) holds no thread of the cooperative pool.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (inout VaultTransaction) throws -> T) async throws -> T {
        try await onOwnThread { try self.write(body) }
    }
}
