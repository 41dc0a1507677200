// vaulttool credential-helper git: git's credential-helper protocol mapped onto internet passwords.

import FoundationEssentials
import Glibc
import VaultIO

/// One credential description of git's protocol (git-credential(1), "INPUT/OUTPUT FORMAT"):
/// `key=value` lines up to a blank line or the end of input.
struct GitCredential {
    var `protocol`: String?
    /// `host` or `host:port`, as git sends it.
    var host: String?
    /// The path on the server, without a leading `/` (sent only with `credential.useHttpPath`).
    var path: String?
    var username: String?
    var password: SecretBytes?

    /// Parses a request; unknown keys (`wwwauth[]`, `capability[]`, `password_expiry_utc`, …) are ignored.
    ///
    /// - Throws: ``ToolError`` for a line without `=`; the line itself is never shown, since it may hold a password.
    init(parsing input: [UInt8]) throws {
        var lineNumber = 0
        for var line in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == 0x0D { line = line.dropLast() }
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: 0x3D) else {
                throw ToolError("line \(lineNumber) of the credential request has no '='", exitCode: .usage)
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
    private mutating func url(_ url: String) throws {
        guard let scheme = url.firstRange(of: "://") else {
            throw ToolError("the url in the credential request has no scheme", exitCode: .usage)
        }
        `protocol` = String(url[..<scheme.lowerBound])
        var rest = url[scheme.upperBound...]
        // The authority ends at the first '/', '?' or '#', as git's url parser ends it.
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<slash]
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            let name = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            username = Text.percentDecoded(name)
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
    var matches: (ItemAttributes) -> Bool {
        let `protocol` = self.protocol?.lowercased()
        let host = self.host.map { CredentialHelper.splitHost($0[...]) }.map { ($0.server, $0.port) }
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
    var attributes: ItemAttributes {
        let (server, port) = CredentialHelper.splitHost((host ?? "")[...])
        var a = ItemAttributes(account: username ?? "")
        a.server = server
        a.port = port
        a.protocol = `protocol` ?? ""
        a.path = path.map { "/" + $0 } ?? ""
        return a
    }
}

/// git's three actions over a ``HelperStore``.
///
/// - `get`: prints `username=` and `password=` of the best match (the most recently modified), or
///   nothing when none matches; exit 0 either way.
/// - `store`: adds or updates the item; a request without protocol, host, username or password is
///   ignored, as git's own `credential-store` ignores it.
/// - `erase`: removes the matching items (only those holding the password given, when one is given);
///   a request naming no field removes nothing.
struct GitCredentialProtocol {
    static let actions: Set<String> = ["get", "store", "erase"]

    let keychain: any HelperStore

    func run(_ action: String, input: () throws -> [UInt8]) throws {
        var bytes = try input()
        defer { SecretMemory.wipe(&bytes) }
        let request = try GitCredential(parsing: bytes)
        switch action {
        case "get": try get(request)
        case "store": try store(request)
        default: try erase(request)
        }
    }

    private func get(_ request: GitCredential) throws {
        guard request.host != nil || request.path != nil else { return }
        // With a username the request may name an item's whole primary key: try that first.
        let exact = request.username != nil && request.protocol != nil && request.host != nil ? request.attributes : nil
        for item in try keychain.find(withSecrets: true, exact: exact, request.matches) {
            guard let secret = item.secret, secret.count > 0, Self.isSendable(item.attributes.account) else { continue }
            var out = [UInt8]()
            defer { SecretMemory.wipe(&out) }
            let sendable = secret.withUnsafeBytes { bytes in
                guard !bytes.contains(0x0A), !bytes.contains(0) else { return false }
                if !item.attributes.account.isEmpty { out += Array("username=\(item.attributes.account)\n".utf8) }
                out += Array("password=".utf8) + bytes + [0x0A]
                return true
            }
            // git's protocol cannot carry a newline or NUL in a value: such an item is skipped.
            guard sendable else { continue }
            Output.outBytes(out)
            return
        }
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
