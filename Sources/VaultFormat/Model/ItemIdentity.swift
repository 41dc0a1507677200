// vault: one identity per item, whoever writes it: the canonical spelling of an internet password's key.

extension ItemAttributes {
    /// The authentication type an internet password has when its writer names none.
    public static let defaultAuthenticationType = "default"

    /// These attributes with the identifying fields of an item of `itemClass` in their canonical
    /// spelling (L-KC-15); the other fields are unchanged.
    ///
    /// Generic passwords are unchanged. For an internet password:
    /// - a server given as `scheme://[user@]host[:port][/path][?query][#fragment]` gives its scheme
    ///   as the protocol, its port and its path, each only when that field is not set, and keeps
    ///   the host alone as the server;
    /// - a server without a scheme ending in `:port` (1 to 65535 with no leading zero, not an
    ///   unbracketed IPv6 literal) gives that port when the port is not set or is the same, and
    ///   keeps the host alone;
    /// - one final `.` of the server is dropped (`github.com.` is `github.com`);
    /// - an IPv6 literal server (two or more `:`, no brackets) is written in brackets;
    /// - the server and the protocol are in lower case (Unicode default case mapping, as
    ///   `String.lowercased()`: host names and schemes compare without case);
    /// - an empty authentication type is ``defaultAuthenticationType``;
    /// - the path `/` is the empty path.
    ///
    /// Every writer (the library, vaulttool, its helpers and importers) stores this spelling, and
    /// every lookup and filter compares it, so that an item written one way is found the others.
    ///
    /// The rules are applied again until the spelling no longer changes: `registry.example:5000.`
    /// loses its dot, and the `:5000` that is then last gives the port. So the canonical identity
    /// of a canonical identity is itself.
    ///
    /// Spec: Spec/library-semantics.md, "Keychain API decisions" (L-KC-15).
    public func canonicalIdentity(for itemClass: ItemClass) -> ItemAttributes {
        guard itemClass == .internetPassword else { return self }
        var a = self
        // Each pass that changes the spelling shortens the server or fills a field, or brackets an
        // IPv6 literal (once): a few passes reach the fixed point; the bound is a guard.
        for _ in 0..<8 {
            let next = a.canonicalPass()
            // A pass writes these fields only; comparing them spares the rest (labels, dates,
            // preserved tags) on every lookup.
            if next.hasSpelling(of: a) { break }
            a = next
        }
        return a
    }

    /// Whether the fields ``canonicalPass()`` writes are equal in both.
    private func hasSpelling(of other: ItemAttributes) -> Bool {
        server == other.server && `protocol` == other.protocol && port == other.port && path == other.path
            && authenticationType == other.authenticationType
    }

    /// One application of the rules of ``canonicalIdentity(for:)`` to an internet password.
    private func canonicalPass() -> ItemAttributes {
        var a = self
        if let separator = CharacterSearch.range(of: "://", in: a.server),
            Self.isScheme(a.server[..<separator.lowerBound])
        {
            let server = a.server
            if a.protocol.isEmpty { a.protocol = String(server[..<separator.lowerBound]) }
            var rest = server[separator.upperBound...]
            if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<slash]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            let (host, port) = Self.splitPort(authority)
            a.server = String(host)
            if a.port == 0, let port { a.port = port }
            if a.path.isEmpty { a.path = String(rest[slash...]) }
        } else if case (let host, let port?) = Self.splitPort(Substring(a.server)), a.port == 0 || a.port == port,
            a.server.utf8[a.server.utf8.index(a.server.utf8.startIndex, offsetBy: host.utf8.count + 1)] != 0x30
        {
            // `host:8443` without a scheme is the host with a port, as in git's `host=`; a port
            // written with a leading zero stays text, so that the server reads back as written.
            a.server = String(host)
            a.port = port
        }
        // A fully qualified name's final dot names the same host (RFC 1034 section 3.1).
        if a.server.count > 1 && a.server.hasSuffix(".") { a.server.removeLast() }
        // An IPv6 literal (two or more ':') is written in brackets, as in a URL: Foundation's
        // `URL.host()` drops them, git and docker keep them.
        if a.server.utf8.count(where: { $0 == 0x3A }) >= 2 && !a.server.hasPrefix("[") {
            a.server = "[" + a.server + "]"
        }
        a.server = a.server.lowercased()
        a.protocol = a.protocol.lowercased()
        if a.authenticationType.isEmpty { a.authenticationType = Self.defaultAuthenticationType }
        if a.path == "/" { a.path = "" }
        return a
    }

    /// The identifying fields of an internet password at `location`, written
    /// `[scheme://]host[:port][/path]` as docker's credential helpers and the Secret Service's
    /// `io.docker.Credentials` schema name a registry, in the canonical spelling: the scheme
    /// (empty without one) is the protocol, the text up to the first `/` after it the server and
    /// its port (split as ``canonicalIdentity(for:)`` splits `host:port`), and everything from
    /// that `/` the path, kept as it is (`/` alone is no path). Unlike a URL given as ``server``,
    /// no user name, query or fragment is taken out: the fields joined give the location back.
    ///
    /// ```swift
    /// let registry = ItemAttributes(internetPasswordAt: "https://Registry.example:5000/v2/")
    /// // protocol "https", server "registry.example", port 5000, path "/v2/"
    /// ```
    ///
    /// Spec: Spec/library-semantics.md, "Keychain API decisions" (L-KC-15).
    public init(internetPasswordAt location: String) {
        self.init()
        var rest = Substring(location)
        if let separator = CharacterSearch.range(of: "://", in: location) {
            `protocol` = String(location[..<separator.lowerBound])
            rest = location[separator.upperBound...]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        server = String(rest[..<slash])
        path = String(rest[slash...])
        self = canonicalIdentity(for: .internetPassword)
    }

    /// Whether these attributes answer for the identity `key` before `other`'s do, when both
    /// spell it: the canonical spelling first, then the more recently modified; on a tie, `self`
    /// (the one found first). The one ranking of L-KC-15, used by every lookup and upsert.
    public func answers(for key: PrimaryKey, before other: ItemAttributes, itemClass: ItemClass) -> Bool {
        let mine = PrimaryKey(itemClass: itemClass, attributes: self) == key
        let theirs = PrimaryKey(itemClass: itemClass, attributes: other) == key
        if mine != theirs { return mine }
        return modificationDate >= other.modificationDate
    }

    /// Whether these attributes and `other` name the same item of `itemClass`: their canonical
    /// primary keys are equal.
    public func hasSameIdentity(as other: ItemAttributes, itemClass: ItemClass) -> Bool {
        PrimaryKey(itemClass: itemClass, attributes: canonicalIdentity(for: itemClass))
            == PrimaryKey(itemClass: itemClass, attributes: other.canonicalIdentity(for: itemClass))
    }

    /// The identifying fields of `identity` (canonical) written over these attributes.
    public mutating func takeIdentity(of identity: ItemAttributes) {
        (service, account, accessGroup, synchronizable) =
            (identity.service, identity.account, identity.accessGroup, identity.synchronizable)
        (server, `protocol`, authenticationType) = (identity.server, identity.protocol, identity.authenticationType)
        (port, path, securityDomain) = (identity.port, identity.path, identity.securityDomain)
    }

    /// The primary keys an item with the canonical identity `self` may have been stored under by a
    /// writer before L-KC-15, cheapest first: the same key with an empty authentication type (what
    /// vaulttool wrote). Other old spellings (a server's case, a scheme inside the server) are
    /// found by comparing canonical identities.
    public func olderSpellings(for itemClass: ItemClass) -> [PrimaryKey] {
        guard itemClass == .internetPassword, authenticationType == Self.defaultAuthenticationType else { return [] }
        var old = self
        old.authenticationType = ""
        return [PrimaryKey(itemClass: itemClass, attributes: old)]
    }

    /// RFC 3986's scheme: a letter, then letters, digits, `+`, `-` or `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
        }
    }

    /// `host` and its port from `host[:port]` or `[v6]:port`; the port is `nil` when there is none
    /// or it is not a number from 1 to 65535 (then the text stays in the host).
    private static func splitPort(_ authority: Substring) -> (Substring, UInt16?) {
        guard let colon = authority.lastIndex(of: ":") else { return (authority, nil) }
        let host = authority[..<colon]
        let digits = authority[authority.index(after: colon)...]
        let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
        guard bracketed || !CharacterSearch.contains(":", in: host), !host.isEmpty, !digits.isEmpty, digits.count <= 5,
            digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }), let port = UInt16(digits), port != 0
        else { return (authority, nil) }
        return (host, port)
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
