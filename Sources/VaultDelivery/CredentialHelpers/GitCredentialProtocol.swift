// vault: git's credential-helper protocol (get, store, erase) over a credential-helper store.

import VaultIO

/// git's three actions over a ``CredentialHelperStore``.
///
/// - `get`: prints `username=` and `password=` of the best match (the most recently modified), or
///   nothing when none matches; exit 0 either way.
/// - `store`: adds or updates the item; a request without protocol, host, username or password is
///   ignored, as git's own `credential-store` ignores it.
/// - `erase`: removes the matching items (only those holding the password given, when one is given);
///   a request naming no field removes nothing.
///
/// Spec: Spec/cli.md, "credential-helper", git mapping.
public struct GitCredentialProtocol {
    /// The actions of git-credential(7); a helper silently ignores any other.
    public static let actions: Set<String> = ["get", "store", "erase"]

    let keychain: any CredentialHelperStore

    /// The protocol over `store`.
    public init(store: any CredentialHelperStore) { keychain = store }

    /// Reads the request in `input` and carries out `action` (one of ``actions``).
    ///
    /// - Returns: What to write on standard output (for `get`: `username=` and `password=`
    ///   lines, or nothing); the caller wipes it.
    /// - Throws: The request's ``VaultDeliveryError``, or the store's error.
    public func run(_ action: String, input: [UInt8]) throws -> [UInt8] {
        let request = try GitCredential(parsing: input)
        switch action {
        case "get": return try get(request)
        case "store": try store(request)
        default: try erase(request)
        }
        return []
    }

    private func get(_ request: GitCredential) throws -> [UInt8] {
        guard request.host != nil || request.path != nil else { return [] }
        // With a username the request may name an item's whole primary key: try that first.
        let exact = request.username != nil && request.protocol != nil && request.host != nil ? request.attributes : nil
        for item in try keychain.find(withSecrets: true, exact: exact, request.matches) {
            guard let secret = item.secret, secret.count > 0, Self.isSendable(item.attributes.account) else { continue }
            var out = [UInt8]()
            let sendable = secret.withUnsafeBytes { bytes in
                guard !bytes.contains(0x0A), !bytes.contains(0) else { return false }
                if !item.attributes.account.isEmpty { out += Array("username=\(item.attributes.account)\n".utf8) }
                out += Array("password=".utf8) + bytes + [0x0A]
                return true
            }
            // git's protocol cannot carry a newline or NUL in a value: such an item is skipped.
            guard sendable else {
                SecretMemory.wipe(&out)
                continue
            }
            return out
        }
        return []
    }

    private func store(_ request: GitCredential) throws {
        guard request.protocol != nil, request.host != nil, request.username != nil, let password = request.password
        else { return }
        try keychain.store(request.attributes, secret: password, replacing: nil)
    }

    private func erase(_ request: GitCredential) throws {
        guard request.protocol != nil || request.host != nil || request.path != nil || request.username != nil
        else { return }
        _ = try keychain.erase(request.matches, ifSecretEquals: request.password)
    }

    /// Whether a value can be written in a `key=value` line.
    private static func isSendable(_ value: String) -> Bool { !value.contains("\n") && !value.contains("\0") }
}
