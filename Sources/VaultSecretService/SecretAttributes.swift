// vaulttool secret-service: a client's attribute map, where it lives in a record, and which vault
// item it names (Spec/secret-service.md §6).

import VaultIO

/// The Secret Service view of one vault item's attributes.
package enum SecretAttributes {
    /// Preserved tag holding the client's map verbatim (R-SS-18).
    package static let mapTag: UInt8 = 64
    /// Preserved tag holding a content type other than `text/plain`.
    package static let contentTypeTag: UInt8 = 65

    static let networkSchema = "org.gnome.keyring.NetworkPassword"
    static let genericSchema = "org.freedesktop.Secret.Generic"
    static let dockerSchema = "io.docker.Credentials"
    /// What begins the account of a map no schema rule decides (R-SS-22), and no other account.
    static let otherMapAccountPrefix: Unicode.Scalar = "?"

    // MARK: Encoding (§6.1)

    /// The map as tag 64's value: entries in ascending byte order of the name.
    package static func encode(_ map: [String: String]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, value) in sorted(map) {
            append(Array(name.utf8), to: &out)
            append(Array(value.utf8), to: &out)
        }
        return out
    }

    /// The map in tag 64's value, `nil` when it does not decode.
    package static func decode(_ bytes: [UInt8]) -> [String: String]? {
        var map: [String: String] = [:]
        var i = 0
        func field() -> String? {
            var length = 0
            var shift = 0
            while true {
                guard i < bytes.count, shift <= 14 else { return nil }
                let b = bytes[i]
                i += 1
                length |= Int(b & 0x7f) << shift
                if b & 0x80 == 0 { break }
                shift += 7
            }
            guard length <= bytes.count - i else { return nil }
            defer { i += length }
            return String(validating: bytes[i..<i + length], as: UTF8.self)
        }
        var previous: [UInt8]? = nil
        while i < bytes.count {
            guard let name = field(), let value = field(), !name.isEmpty else { return nil }
            let key = Array(name.utf8)
            if let previous, !previous.lexicographicallyPrecedes(key) { return nil }
            previous = key
            map[name] = value
        }
        return map
    }

    private static func append(_ field: [UInt8], to out: inout [UInt8]) {
        var n = field.count
        repeat {
            out.append(UInt8(n & 0x7f) | (n >= 0x80 ? 0x80 : 0))
            n >>= 7
        } while n > 0
        out += field
    }

    static func sorted(_ map: [String: String]) -> [(key: String, value: String)] {
        map.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
    }

    // MARK: Reading an item (R-SS-18)

    /// The map `Attributes` returns for an item.
    package static func map(of a: ItemAttributes, itemClass: ItemClass) -> [String: String] {
        storedMap(of: a) ?? fieldsMap(of: a, itemClass: itemClass)
    }

    /// The map in an item's tag 64, `nil` when it has none or it does not decode.
    package static func storedMap(of a: ItemAttributes) -> [String: String]? {
        storedBytes(of: a).flatMap(decode)
    }

    /// Tag 64's value as stored, `nil` when the item has none.
    package static func storedBytes(of a: ItemAttributes) -> [UInt8]? {
        a.preserved.first(where: { $0.tag == mapTag })?.value
    }

    /// The map an item's own fields give (R-SS-18's list), whatever tag 64 holds.
    package static func fieldsMap(of a: ItemAttributes, itemClass: ItemClass) -> [String: String] {
        var map: [String: String] = [:]
        switch itemClass {
        case .genericPassword:
            map["xdg:schema"] = genericSchema
            map["service"] = a.service
            if !a.account.isEmpty { (map["account"], map["username"]) = (a.account, a.account) }
        case .internetPassword:
            map["xdg:schema"] = networkSchema
            map["server"] = a.server
            if !a.account.isEmpty { map["user"] = a.account }
            if !a.protocol.isEmpty { map["protocol"] = a.protocol }
            if a.port != 0 { map["port"] = String(a.port) }
            if !a.path.isEmpty { map["object"] = a.path.hasPrefix("/") ? String(a.path.dropFirst()) : a.path }
            if !a.authenticationType.isEmpty { map["authtype"] = a.authenticationType }
            if !a.securityDomain.isEmpty { map["domain"] = a.securityDomain }
        }
        return map
    }

    /// The content type stored with an item.
    package static func contentType(of a: ItemAttributes) -> String {
        guard let stored = a.preserved.first(where: { $0.tag == contentTypeTag }),
            let text = String(validating: stored.value, as: UTF8.self), !text.isEmpty
        else { return "text/plain" }
        return text
    }

    /// Stores `type` in tag 65, or removes the tag for `text/plain` (§6.1).
    package static func setContentType(_ type: String, in a: inout ItemAttributes) {
        setPreserved(contentTypeTag, type == "text/plain" ? nil : Array(type.utf8), in: &a)
    }

    /// Sets preserved tag `tag` to `value`, or removes it for `nil`, keeping the tags ascending.
    package static func setPreserved(_ tag: UInt8, _ value: [UInt8]?, in a: inout ItemAttributes) {
        a.preserved.removeAll { $0.tag == tag }
        if let value { a.preserved.append(PreservedAttribute(tag: tag, value: value)) }
        a.preserved.sort { $0.tag < $1.tag }
    }

    /// Whether `map` holds every entry of `search` (R-SS-24).
    /// Names and values compare as bytes (Swift's `==` on strings is canonical equivalence, under
    /// which `é` and `e` + U+0301 are equal).
    package static func matches(_ map: [String: String], _ search: [String: String]) -> Bool {
        search.allSatisfy { wanted in
            map.contains {
                $0.key.utf8.elementsEqual(wanted.key.utf8) && $0.value.utf8.elementsEqual(wanted.value.utf8)
            }
        }
    }

    /// Whether two maps are the same, compared as bytes.
    package static func same(_ a: [String: String], _ b: [String: String]) -> Bool { encode(a) == encode(b) }

    // MARK: Naming an item (§6.2)

    /// The item class and identity (canonical, L-KC-15) that `map` names.
    package static func identity(of map: [String: String]) throws(BusError) -> (ItemClass, ItemAttributes) {
        let schema = map["xdg:schema"]
        let names = Set(map.keys).subtracting(["xdg:schema", "application"])
        if let network = network(map, names, schema) { return (.internetPassword, network) }
        if let docker = docker(map, names, schema) { return (.internetPassword, docker) }
        let accountNames = names.intersection(["account", "username", "user"])
        let account = accountNames.first.flatMap { map[$0] } ?? ""
        var a = ItemAttributes()
        if let service = map["service"], names.isSubset(of: ["service", "account", "username", "user"]),
            accountNames.count <= 1, account.utf8.first != UInt8(ascii: otherMapAccountPrefix)
        {
            (a.service, a.account) = (service, account)
        } else {
            // R-SS-22: `application` stays in, and the `?` keeps the account apart from R-SS-21's.
            a.service = schema ?? genericSchema
            a.account =
                String(otherMapAccountPrefix)
                + sorted(map).filter { $0.key != "xdg:schema" }
                .map { escape($0.key) + "=" + escape($0.value) }.joined(separator: "&")
        }
        guard a.service.utf8.count <= BusLimits.textBytes, a.account.utf8.count <= BusLimits.textBytes else {
            throw .limits("the attributes name an item over 4,096 bytes")
        }
        if a.service.isEmpty { throw .invalidArgs("the attributes name no service") }
        return (.genericPassword, a.canonicalIdentity(for: .genericPassword))
    }

    /// R-SS-19.
    private static func network(_ map: [String: String], _ names: Set<String>, _ schema: String?) -> ItemAttributes? {
        let allowed: Set = ["user", "server", "protocol", "port", "object", "authtype", "domain"]
        guard schema == networkSchema || (schema == nil && names.contains("server")), names.isSubset(of: allowed),
            let server = map["server"], !server.isEmpty
        else { return nil }
        var a = ItemAttributes(account: map["user"] ?? "")
        a.server = server
        a.protocol = map["protocol"] ?? ""
        if let port = map["port"] {
            guard let value = canonicalPort(port) else { return nil }
            a.port = value
        }
        if let object = map["object"], !object.isEmpty { a.path = object.hasPrefix("/") ? object : "/" + object }
        a.authenticationType = map["authtype"] ?? ""
        a.securityDomain = map["domain"] ?? ""
        return a.canonicalIdentity(for: .internetPassword)
    }

    /// R-SS-20: what `vaulttool credential-helper docker` stores for the URL.
    private static func docker(_ map: [String: String], _ names: Set<String>, _ schema: String?) -> ItemAttributes? {
        guard schema == dockerSchema, names.isSubset(of: ["server", "username", "docker_cli", "label"]),
            let url = map["server"], !url.isEmpty
        else { return nil }
        // The same reading as vaulttool's docker helper, so that both name one item.
        var a = ItemAttributes(internetPasswordAt: url)
        a.account = map["username"] ?? ""
        a.accessGroup = "docker"
        return a
    }

    /// A port written one way: 1 to 65535, decimal, no sign or leading zero.
    static func canonicalPort(_ text: Substring) -> UInt16? {
        guard let first = text.first, first != "0", text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt16(text)
    }

    static func canonicalPort(_ text: String) -> UInt16? { canonicalPort(text[...]) }

    /// `s` with the bytes `%`, `=` and `&` escaped; byte by byte, so that a combining mark after
    /// `=` or `&` (one Swift character with it) cannot hide the separator.
    private static func escape(_ s: String) -> String {
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "%"): out += Array("%25".utf8)
            case UInt8(ascii: "="): out += Array("%3D".utf8)
            case UInt8(ascii: "&"): out += Array("%26".utf8)
            default: out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
