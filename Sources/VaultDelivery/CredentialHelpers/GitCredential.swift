// vault: one credential description of git's credential-helper protocol, as internet-password attributes.

import VaultIO

/// One credential description of git's protocol (git-credential(1), "INPUT/OUTPUT FORMAT"):
/// `key=value` lines up to a blank line or the end of input.
///
/// Spec: Spec/cli.md, "credential-helper", git mapping.
public struct GitCredential {
    /// The scheme, such as `https`.
    public var `protocol`: String?
    /// `host` or `host:port`, as git sends it.
    public var host: String?
    /// The path on the server, without a leading `/` (sent only with `credential.useHttpPath`).
    public var path: String?
    /// The user name.
    public var username: String?
    /// The password, for `store` and `erase`.
    public var password: SecretBytes?

    /// Parses a request; unknown keys (`wwwauth[]`, `capability[]`, `password_expiry_utc`, …) are ignored.
    ///
    /// - Throws: ``VaultDeliveryError/Code/invalidInput`` for a line without `=` (the line itself
    ///   is never shown, since it may hold a password), or a `url` without a scheme.
    public init(parsing input: [UInt8]) throws(VaultDeliveryError) {
        var lineNumber = 0
        for var line in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == 0x0D { line = line.dropLast() }
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: 0x3D) else {
                throw VaultDeliveryError(.invalidInput, "line \(lineNumber) of the credential request has no '='")
            }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = line[line.index(after: equals)...]
            let text = { String(decoding: value, as: UTF8.self) }
            switch key {
            case "protocol": `protocol` = text()
            case "host": host = text()
            case "path": path = text()
            case "username": username = text()
            case "password": password = SecretBytes(bytes: value, protection: .guarded)
            case "url": try self.url(text())
            default: break
            }
        }
        // An empty value is the same as no value (git never sends one).
        if `protocol`?.isEmpty == true { `protocol` = nil }
        if host?.isEmpty == true { host = nil }
        if path?.isEmpty == true { path = nil }
        if username?.isEmpty == true { username = nil }
        if password?.count == 0 { password = nil }
    }

    /// Sets the fields of `url=<scheme>://[<user>@]<host>[/<path>]`, as git does before it calls a helper.
    private mutating func url(_ url: String) throws(VaultDeliveryError) {
        guard let scheme = url.firstRange(of: "://") else {
            throw VaultDeliveryError(.invalidInput, "the url in the credential request has no scheme")
        }
        `protocol` = String(url[..<scheme.lowerBound])
        var rest = url[scheme.upperBound...]
        // The authority ends at the first '/', '?' or '#', as git's url parser ends it.
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<slash]
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            let name = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            username = Self.percentDecoded(name)
            authority = authority[authority.index(after: at)...]
        }
        host = String(authority)
        // The path is what follows, without leading '/'s; a '?' or '#' that ended the host stays in it (git).
        rest = rest[slash...].drop(while: { $0 == "/" })
        path = rest.isEmpty ? nil : String(rest)
    }

    /// A test of whether an item matches, with git's rule: every field given must equal the
    /// item's, and a field not given matches anything. Only items of the default access group,
    /// where `store` puts them, match: not docker's, and not one a recipient limited to another
    /// group planted there (a later github.com item in `deploy` would otherwise answer for the
    /// owner's). The host is split once, not once per item.
    ///
    /// Spec: Spec/cli.md, "credential-helper", git mapping.
    public var matches: (ItemAttributes) -> Bool {
        let `protocol` = self.protocol?.lowercased()
        let host = self.host.map { Self.splitHost($0[...]) }.map { ($0.server, $0.port) }
        let path = self.path
        let username = self.username
        return { stored in
            // Compared in the spelling every writer stores (L-KC-15), so an app's item answers too.
            let a = stored.canonicalIdentity(for: .internetPassword)
            if let `protocol`, a.protocol != `protocol` { return false }
            if let host, a.port != host.1 || a.server != host.0 { return false }
            if let username, a.account != username { return false }
            if let path, Self.gitPath(a.path) != path { return false }
            return a.accessGroup.isEmpty
        }
    }

    /// An item's path as git writes it: without the leading `/`.
    static func gitPath(_ path: String) -> String { path.hasPrefix("/") ? String(path.dropFirst()) : path }

    /// The primary key this credential is stored under: an internet password in the default access group.
    public var attributes: ItemAttributes {
        let (server, port) = Self.splitHost((host ?? "")[...])
        var a = ItemAttributes(account: username ?? "")
        a.server = server
        a.port = port
        a.protocol = `protocol` ?? ""
        a.path = path.map { "/" + $0 } ?? ""
        return a
    }

    /// Splits `host[:port]` (or `[v6]:port`) into the server and its port (0 when none), the
    /// server in the spelling every writer stores (L-KC-15: lower case, no final dot), so that a
    /// `get` or `erase` names the item a `store` of the same text wrote.
    static func splitHost(_ host: Substring) -> (server: String, port: UInt16) {
        var a = ItemAttributes()
        a.server = String(host)
        let canonical = a.canonicalIdentity(for: .internetPassword)
        return (canonical.server, canonical.port)
    }

    /// `text` with each `%XX` replaced by the byte it names, `nil` when an escape is malformed or
    /// the bytes are not UTF-8 (as git's url parser decodes a user name).
    static func percentDecoded(_ text: some StringProtocol) -> String? {
        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var rest = text.utf8[...]
        while let b = rest.popFirst() {
            guard b == UInt8(ascii: "%") else {
                bytes.append(b)
                continue
            }
            guard let h = rest.popFirst().flatMap(hexValue), let l = rest.popFirst().flatMap(hexValue) else {
                return nil
            }
            bytes.append(h << 4 | l)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
