// vault: naming one item in text (`vault://db/app`), for environments, templates and configs.

/// A reference to one item, as written in an environment variable, a template or a config file:
///
/// - `vault://SERVICE/ACCOUNT` names a generic password; `vault://SERVICE` any one account of it.
/// - `vault+https://ACCOUNT@HOST:PORT/PATH` names an internet password whose protocol is the
///   scheme after `vault+`; `vault+internet://…` leaves the protocol open. The port and path are
///   named exactly: none given is no port and no path.
/// - A query adds `group=G` (the access group), `accessibility=C` (the protection class the
///   caller expects: an item found with another class is refused), and for internet passwords
///   `authentication-type=T` and `security-domain=D`.
///
/// Every part is percent-encoded UTF-8 (`/`, `?`, `#`, `%`, `&`, `=`, `@`, space and control
/// characters must be). A reference selects exactly what `vaulttool get` selects for the same
/// attributes (``VaultSnapshot/item(matching:includeSecret:)``).
///
/// ```swift
/// let reference = try ItemReference(parsing: "vault://db/app?group=backend")
/// let password = try vault.secret(for: reference)
/// ```
///
/// Spec: Spec/cli.md, "References".
public struct ItemReference: Sendable, Hashable, CustomStringConvertible {
    /// The attributes the reference names.
    public let query: ItemQuery
    /// The protection class named by `accessibility=`, checked after the item is found.
    public let expectedAccessibility: ProtectionClass?
    /// The reference as given. It names an item, never holds a secret.
    public let description: String

    /// Whether `text` is meant as a reference: it starts with `vault://` or `vault+`, in any case
    /// (a scheme is case-insensitive, RFC 3986). Text that is meant as one and does not parse is
    /// an error, never a literal value.
    public static func isReference(_ text: String) -> Bool {
        let prefix = text.utf8.prefix(8).map { $0 | 0x20 }
        return prefix.starts(with: "vault://".utf8) || prefix.starts(with: "vault+".utf8)
    }

    /// Parses `text`.
    ///
    /// - Throws: ``VaultIOError`` ``VaultIOError/Code/invalidReference`` whose reason says what is
    ///   wrong (the reference itself is not repeated in it).
    public init(parsing text: String) throws(VaultIOError) {
        description = text
        var rest = Substring(text)
        // The scheme compares without case (RFC 3986); the rest is case-sensitive.
        if Self.isReference(text) { rest = "vault" + rest.dropFirst(5) }
        var query = ItemQuery()
        let internet: Bool
        if rest.hasPrefix("vault://") {
            internet = false
            rest = rest.dropFirst("vault://".count)
            query.itemClass = .genericPassword
        } else if rest.hasPrefix("vault+"), let separator = rest.firstRange(of: "://") {
            internet = true
            let scheme = rest[rest.index(rest.startIndex, offsetBy: "vault+".count)..<separator.lowerBound]
            guard Self.isScheme(scheme) else { throw Self.invalid("the scheme after 'vault+' is not a URL scheme") }
            if scheme.lowercased() != "internet" { query.protocol = scheme.lowercased() }
            rest = rest[separator.upperBound...]
            query.itemClass = .internetPassword
        } else {
            throw Self.invalid("a reference starts with 'vault://' or 'vault+<scheme>://'")
        }
        if rest.contains("#") { throw Self.invalid("a reference has no fragment ('#' must be written %23)") }
        var parameters: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            parameters = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
            if parameters.isEmpty { throw Self.invalid("a '?' is followed by no parameter") }
        }
        if internet {
            try Self.parseInternet(rest, into: &query)
        } else {
            try Self.parseGeneric(rest, into: &query)
        }
        expectedAccessibility = try Self.parseParameters(parameters, internet: internet, into: &query)
        self.query = query.canonicalized()
    }

    /// `SERVICE[/ACCOUNT]`.
    private static func parseGeneric(_ text: Substring, into query: inout ItemQuery) throws(VaultIOError) {
        let parts = text.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw invalid("a '/' inside the service or account must be written %2F") }
        query.service = try decode(parts[0], "the service")
        if query.service!.isEmpty { throw invalid("the service is empty") }
        if parts.count == 2 { query.account = try decode(parts[1], "the account") }
    }

    /// `[ACCOUNT@]HOST[:PORT][/PATH]`.
    private static func parseInternet(_ text: Substring, into query: inout ItemQuery) throws(VaultIOError) {
        var authority = text
        var path: Substring = ""
        if let slash = text.firstIndex(of: "/") {
            authority = text[..<slash]
            path = text[slash...]
        }
        if let at = authority.lastIndex(of: "@") {
            query.account = try decode(authority[..<at], "the account")
            authority = authority[authority.index(after: at)...]
        }
        var host = authority
        var port: UInt16 = 0
        if authority.hasPrefix("[") {
            // An IPv6 literal: `[…]`, then nothing or `:port`.
            guard let close = authority.firstIndex(of: "]") else { throw invalid("an IPv6 host has no closing ']'") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if host.count == 2 { throw invalid("the host is empty") }
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw invalid("an IPv6 host in brackets is followed by ':port' or nothing")
                }
                port = try parsePort(after.dropFirst())
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = try parsePort(authority[authority.index(after: colon)...])
        }
        let server = try decode(host, "the host")
        if server.isEmpty { throw invalid("the host is empty") }
        query.server = server
        query.port = port
        let decodedPath = try decode(path, "the path")
        query.path = decodedPath == "/" ? "" : decodedPath
    }

    /// A port: 1 to 65535 in decimal digits, with no sign and no leading zero. A second `:` (an
    /// IPv6 address without brackets) is refused here too.
    private static func parsePort(_ text: Substring) throws(VaultIOError) -> UInt16 {
        guard let first = text.first, first != "0", text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = UInt16(text)
        else {
            throw invalid("the port is not a number from 1 to 65535 (an IPv6 host is written in brackets)")
        }
        return value
    }

    /// `key=value&…`; returns the expected accessibility.
    private static func parseParameters(_ text: Substring, internet: Bool, into query: inout ItemQuery)
        throws(VaultIOError) -> ProtectionClass?
    {
        var accessibility: ProtectionClass?
        var seen = Set<Substring>()
        for pair in text.split(separator: "&", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let equals = pair.firstIndex(of: "=") else { throw invalid("'\(escaped(pair))' has no '='") }
            let key = pair[..<equals]
            let value = try decode(pair[pair.index(after: equals)...], "the value of '\(escaped(key))'")
            guard seen.insert(key).inserted else { throw invalid("'\(escaped(key))' is given twice") }
            switch key {
            case "group": query.accessGroup = value
            case "accessibility":
                guard let named = ProtectionClass(name: value) else {
                    throw invalid("'\(escaped(Substring(value)))' is not a protection class")
                }
                accessibility = named
            case "authentication-type" where internet: query.authenticationType = value
            case "security-domain" where internet: query.securityDomain = value
            default:
                throw invalid(
                    "'\(escaped(key))' is not a parameter of a\(internet ? "n internet" : " generic") password "
                        + "reference (group, accessibility\(internet ? ", authentication-type, security-domain" : ""))"
                )
            }
        }
        return accessibility
    }

    /// Percent-decodes `text` to UTF-8, refusing raw bytes that must be encoded.
    private static func decode(_ text: Substring, _ what: String) throws(VaultIOError) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else {
                    throw invalid("\(what) has a '%' not followed by two hexadecimal digits")
                }
                bytes.append(high << 4 | low)
            case 0...0x20, 0x7F, UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "?"):
                throw invalid(
                    "\(what) holds a space, a control character or one of '&=@?' that must be percent-encoded"
                )
            default:
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw invalid("\(what) is not UTF-8 once decoded")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// RFC 3986's scheme: a letter, then letters, digits, `+`, `-` or `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }

    /// Printable text of a part of the reference, for the reason.
    private static func escaped(_ text: Substring) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }

    private static func invalid(_ reason: String) -> VaultIOError {
        VaultIOError(.invalidReference, reason: reason)
    }
}

extension VaultSnapshot {
    /// The secret of the one item `reference` names.
    ///
    /// - Throws: the errors of ``item(matching:includeSecret:)``, and ``VaultIOError``
    ///   ``VaultIOError/Code/accessibilityMismatch`` when the item's protection class is not the
    ///   one the reference expects.
    public func secret(for reference: ItemReference) throws -> SecretBytes {
        let item = try item(matching: reference.query, includeSecret: true)
        if let expected = reference.expectedAccessibility, item.entry.protectionClass != expected {
            throw VaultIOError(
                .accessibilityMismatch,
                reason: "the item's accessibility is \(item.entry.protectionClass), not \(expected) as expected"
            )
        }
        guard let secret = item.secret else { throw VaultIOError(.itemNotFound, reason: "the item has no secret") }
        return secret
    }
}

extension Vault {
    /// The secret of the one item `reference` names, read from the newest generation.
    public func secret(for reference: ItemReference) throws -> SecretBytes {
        try read { try $0.secret(for: reference) }
    }
}
