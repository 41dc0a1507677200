// vault: a keychain of internet passwords for a URL, as SwiftyKeychainKit offers.

public import FoundationEssentials

extension Keychain {
    /// A keychain of internet passwords for the location a URL names.
    ///
    /// The URL gives the server (its host, lowercased), the protocol (its scheme, lowercased:
    /// `https` is ``InternetProtocol/https``, an unknown scheme is kept by name), the port (0
    /// when the URL has none) and the path (`""` for none or `/`, so `https://example.com` and
    /// `https://example.com/` are one location). User, password, query and fragment are ignored;
    /// the key is the account.
    ///
    /// ```swift
    /// let site = try Keychain(server: URL(string: "https://example.com:8443/api")!, vault: vault)
    /// try site.set(password, forKey: "alice")
    /// ```
    ///
    /// - Parameters:
    ///   - url: An absolute URL with a scheme and a host.
    ///   - authenticationType: How the password is presented; ``AuthenticationType/default``.
    ///   - securityDomain: The security domain (an HTTP realm), or empty.
    ///   - accessGroup: The access group, or `nil` for the default one.
    ///   - vault: The vault to use.
    /// - Throws: ``KeychainError/invalidParameter(_:)`` when the URL has no scheme or no host.
    public init(
        server url: URL,
        authenticationType: AuthenticationType = .default,
        securityDomain: String = "",
        accessGroup: String? = nil,
        vault: Vault
    ) throws(KeychainError) {
        guard let scheme = url.scheme, !scheme.isEmpty else {
            throw .invalidParameter("an internet-password URL needs a scheme (https://…)")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw .invalidParameter("an internet-password URL needs a host")
        }
        guard let port = UInt16(exactly: url.port ?? 0) else {
            throw .invalidParameter("the URL's port is outside 0...65535")
        }
        let path = url.path(percentEncoded: false)
        self.init(
            server: host.lowercased(),
            protocol: InternetProtocol(rawValue: scheme.lowercased()),
            authenticationType: authenticationType,
            port: port,
            path: path == "/" ? "" : path,
            securityDomain: securityDomain,
            accessGroup: accessGroup,
            vault: vault
        )
    }
}
