// vault: docker's credential-helper protocol mapped onto internet passwords.

import VaultIO

/// A docker registry's `ServerURL` split into internet-password attributes, and joined back.
///
/// `[<scheme>://]<host>[:<port>][<rest>]` becomes protocol `<scheme>` (empty without one), server
/// `<host>`, port `<port>` (0 without one) and path `<rest>` (everything from the first `/`, kept
/// as is). Scheme and host are read in lower case and the path `/` as none, the spelling every
/// writer stores (L-KC-15); joining the attributes gives that text back, so `list` returns the URLs
/// docker stored in that spelling.
public struct DockerServer: Equatable, Sendable {
    /// The scheme, empty without one.
    public var scheme: String
    /// The host, in lower case.
    public var server: String
    /// The port, 0 without one.
    public var port: UInt16
    /// Everything from the first `/`; empty for none or `/`.
    public var path: String

    /// The location `url` names, as every writer reads it (L-KC-15, the Secret Service's docker
    /// schema included).
    public init(url: String) {
        self.init(ItemAttributes(internetPasswordAt: url))
    }

    /// The server an item names, read in the canonical spelling (L-KC-15).
    public init(_ stored: ItemAttributes) {
        let a = stored.canonicalIdentity(for: .internetPassword)
        scheme = a.protocol
        server = a.server
        port = a.port
        path = a.path
    }

    /// The URL text.
    public var url: String {
        (scheme.isEmpty ? "" : scheme + "://") + (port == 0 ? server : "\(server):\(port)") + path
    }

    /// Whether `a` is docker's item for this server.
    public func matches(_ a: ItemAttributes) -> Bool {
        a.accessGroup == DockerCredentialProtocol.accessGroup && DockerServer(a) == self
    }
}

/// docker's actions over a ``CredentialHelperStore``, as `docker-credential-helpers` defines them:
/// `store` reads `{"ServerURL":…,"Username":…,"Secret":…}`; `get` and `erase` read the server
/// URL; `list` prints `{"<ServerURL>":"<Username>",…}`; failures print one line on stdout.
///
/// Docker's items are internet passwords in access group `docker` labelled `Docker Credentials`
/// (the label docker's own helpers use), one per server URL. `version` is the caller's to answer.
///
/// Spec: Spec/cli.md, "credential-helper", docker mapping.
public struct DockerCredentialProtocol {
    /// The access group of docker's items.
    public static let accessGroup = "docker"
    /// The label of docker's items.
    public static let label = "Docker Credentials"

    /// The protocol's failures, worded exactly as `docker-credential-helpers` words them
    /// (docker compares the not-found text).
    public struct Failure: Error {
        /// The line docker shows.
        public let message: String
        static let notFound = Failure(message: "credentials not found in native keychain")
        static let missingServerURL = Failure(message: "no credentials server URL")
        static let missingUsername = Failure(message: "no credentials username")
        static let missingSecret = Failure(message: "no credentials secret")
        static let badJSON = Failure(message: "the credentials are not a JSON object of strings")
    }

    /// Opens the store on first use.
    let store: () throws -> any CredentialHelperStore

    /// The protocol over the store `store` opens when an action first needs it.
    public init(store: @escaping () throws -> any CredentialHelperStore) { self.store = store }

    /// Carries out `action` (`store`, `get`, `erase` or `list`), reading the request from `input`
    /// when the action has one.
    ///
    /// - Returns: What to write on standard output; the caller wipes it.
    /// - Throws: A ``Failure`` worded as docker expects it, or the store's error.
    public func run(_ action: String, input: () throws -> [UInt8]) throws -> [UInt8] {
        switch action {
        case "store":
            var bytes = try input()
            defer { SecretMemory.wipe(&bytes) }
            try storeCredentials(bytes)
            return []
        case "get": return try get(try Self.serverURL(input()))
        case "erase":
            try erase(try Self.serverURL(input()))
            return []
        case "list": return try list()
        default: throw Failure(message: "Unknown credential action `\(action)`")
        }
    }

    private func storeCredentials(_ bytes: [UInt8]) throws {
        // The reference helper joins the input's lines, then decodes one JSON object whose
        // member names match case-insensitively (Go's encoding/json). The secret stays in bytes.
        var joined = Array(Self.lines(bytes).joined())
        defer { SecretMemory.wipe(&joined) }
        var members: JSONStringMembers
        do {
            members = try JSONStringMembers(joined, wanted: ["serverurl", "username", "secret"])
        } catch {
            throw Failure.badJSON
        }
        defer { members.wipe() }
        let text = { (name: String) in members.values[name].map { String(decoding: $0, as: UTF8.self) } ?? "" }
        let serverURL = text("serverurl")
        let username = text("username")
        guard !serverURL.isEmpty else { throw Failure.missingServerURL }
        guard !username.isEmpty else { throw Failure.missingUsername }
        guard members.values["secret"]?.isEmpty == false else { throw Failure.missingSecret }
        // No local copy of the array: `members.wipe()` must find its buffer uniquely referenced.
        let secret = SecretBytes(bytes: members.values["secret"]!, protection: .guarded)
        let server = DockerServer(url: serverURL)
        var a = ItemAttributes(account: username)
        a.accessGroup = Self.accessGroup
        a.label = Self.label
        a.protocol = server.scheme
        a.server = server.server
        a.port = server.port
        a.path = server.path
        try store().store(a, secret: secret, replacing: server.matches)
    }

    private func get(_ serverURL: String) throws -> [UInt8] {
        let server = DockerServer(url: serverURL)
        guard let item = try store().find(withSecrets: true, exact: nil, server.matches).first, let secret = item.secret
        else {
            throw Failure.notFound
        }
        var out = Array(#"{"ServerURL":"#.utf8)
        Self.appendJSONString(Array(serverURL.utf8), to: &out)
        out += Array(#","Username":"#.utf8)
        Self.appendJSONString(Array(item.attributes.account.utf8), to: &out)
        out += Array(#","Secret":"#.utf8)
        secret.withUnsafeBytes { Self.appendJSONString($0, to: &out) }
        out += Array("}\n".utf8)
        return out
    }

    private func erase(_ serverURL: String) throws {
        let server = DockerServer(url: serverURL)
        guard try store().erase(server.matches, ifSecretEquals: nil) > 0 else { throw Failure.notFound }
    }

    private func list() throws -> [UInt8] {
        var accounts = [String: String]()
        let items = try store().find(withSecrets: false, exact: nil) { $0.accessGroup == Self.accessGroup }
        for item in items.reversed() {
            accounts[DockerServer(item.attributes).url] = item.attributes.account
        }
        var out = Array("{".utf8)
        for (index, url) in accounts.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            .enumerated()
        {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            Self.appendJSONString(Array(url.utf8), to: &out)
            out.append(UInt8(ascii: ":"))
            Self.appendJSONString(Array(accounts[url]!.utf8), to: &out)
        }
        out += Array("}\n".utf8)
        return out
    }

    // MARK: - Input and output as the reference helpers do it

    /// The input's lines without their `\n` or `\r\n` (Go's `bufio.ScanLines`).
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? Array(line.dropLast()) : Array(line)
        }
        if bytes.last == 0x0A { lines.removeLast() }
        return lines
    }

    /// The server URL of `get` and `erase`: the joined lines, trimmed of white space.
    static func serverURL(_ bytes: [UInt8]) throws -> String {
        let text = Text.trimmingWhitespace(String(decoding: lines(bytes).joined(), as: UTF8.self))
        guard !text.isEmpty else { throw Failure.missingServerURL }
        return text
    }

    /// Appends `bytes` as a JSON string the way Go's `encoding/json` writes it: `"` and `\` escaped,
    /// `\n` `\r` `\t` `\b` `\f` short, other control characters and `<` `>` `&` U+2028 U+2029 as
    /// `\u00XX`, invalid UTF-8 as `\ufffd`.
    static func appendJSONString(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        func escape(_ text: String) { out += Array(text.utf8) }
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                switch scalar.value {
                case 0x22: escape("\\\"")
                case 0x5C: escape("\\\\")
                case 0x0A: escape("\\n")
                case 0x0D: escape("\\r")
                case 0x09: escape("\\t")
                case 0x08: escape("\\b")
                case 0x0C: escape("\\f")
                case 0x00..<0x20, 0x3C, 0x3E, 0x26, 0x2028, 0x2029:
                    let hex = String(scalar.value, radix: 16)
                    escape("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: out += Array(encoded)
                }
            case .error: escape("\\ufffd")
            case .emptyInput: break decoding
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
