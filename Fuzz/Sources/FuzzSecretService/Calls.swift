// vault fuzz target FuzzSecretService: method calls made from fuzz input.

import CSystemdBus

/// The fuzz input, read front to back; past its end every read is zero.
struct InputReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + count)
        defer { position = max(position, end) }
        return position < end ? Array(bytes[position..<end]) : []
    }

    /// `choices[b]` for a byte b below 0xE0 (modulo their count), else (one time in eight) text
    /// made of the input's next bytes.
    mutating func word(_ choices: [String]) -> String {
        let b = byte()
        if b >= 0xE0 {
            let raw = take(Int(byte() % 64)).map { $0 == 0 ? 0x20 : $0 }
            return String(decoding: raw, as: UTF8.self)
        }
        return choices[Int(b) % choices.count]
    }
}

/// Whom a method is called on.
enum Target { case service, collection, item, session, prompt, any }

/// A method the provider serves, with the signature its table declares.
struct Method {
    let target: Target
    let interface: String
    let member: String
    let signature: String
}

let service = "org.freedesktop.Secret.Service"
let collection = "org.freedesktop.Secret.Collection"
let item = "org.freedesktop.Secret.Item"
let properties = "org.freedesktop.DBus.Properties"

/// Every method of the provider's tables (Sources/CSecretService/CSecretService.c), the property
/// calls on each object, and bus interfaces sd-bus answers itself.
let methods: [Method] = [
    Method(target: .service, interface: service, member: "OpenSession", signature: "sv"),
    Method(target: .service, interface: service, member: "CreateCollection", signature: "a{sv}s"),
    Method(target: .service, interface: service, member: "SearchItems", signature: "a{ss}"),
    Method(target: .service, interface: service, member: "Unlock", signature: "ao"),
    Method(target: .service, interface: service, member: "Lock", signature: "ao"),
    Method(target: .service, interface: service, member: "GetSecrets", signature: "aoo"),
    Method(target: .service, interface: service, member: "ReadAlias", signature: "s"),
    Method(target: .service, interface: service, member: "SetAlias", signature: "so"),
    Method(target: .collection, interface: collection, member: "Delete", signature: ""),
    Method(target: .collection, interface: collection, member: "SearchItems", signature: "a{ss}"),
    Method(target: .collection, interface: collection, member: "CreateItem", signature: "a{sv}(oayays)b"),
    Method(target: .item, interface: item, member: "Delete", signature: ""),
    Method(target: .item, interface: item, member: "GetSecret", signature: "o"),
    Method(target: .item, interface: item, member: "SetSecret", signature: "(oayays)"),
    Method(target: .session, interface: "org.freedesktop.Secret.Session", member: "Close", signature: ""),
    Method(target: .prompt, interface: "org.freedesktop.Secret.Prompt", member: "Prompt", signature: "s"),
    Method(target: .prompt, interface: "org.freedesktop.Secret.Prompt", member: "Dismiss", signature: ""),
    Method(target: .any, interface: properties, member: "Get", signature: "ss"),
    Method(target: .any, interface: properties, member: "GetAll", signature: "s"),
    Method(target: .any, interface: properties, member: "Set", signature: "ssv"),
    Method(target: .any, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect", signature: ""),
    Method(target: .any, interface: "org.freedesktop.DBus.Peer", member: "Ping", signature: ""),
]

/// Strings the provider gives meaning to: algorithms, aliases, property and attribute names.
let words = [
    "", "plain", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "dh-ietf1024-sha256_aes128_cbc_pkcs7", "default", "login",
    "session", service, collection, item, "Label", "Attributes", "Locked", "Items", "Collections", "Created",
    "Modified", "Type", "org.freedesktop.Secret.Item.Label", "org.freedesktop.Secret.Item.Attributes",
    "org.freedesktop.Secret.Collection.Label", "xdg:schema", "org.gnome.keyring.NetworkPassword",
    "io.docker.Credentials", "service", "username", "user", "server", "protocol", "port", "object", "authtype",
    "domain", "application", "label", "https", "github.com", "443", "8443", "-1", "text/plain",
    "application/octet-stream", "é", "e\u{301}", "a\u{0}b",
]

/// Object paths the input can name: what replies gave this run, and some that do not exist.
struct KnownPaths {
    var collections = ["/org/freedesktop/secrets/aliases/default", "/org/freedesktop/secrets/collection/fuzz"]
    var items: [String] = []
    var sessions: [String] = []
    var prompts: [String] = []
    let strays = [
        "/", "/org/freedesktop/secrets", "/org/freedesktop/secrets/collection/fuzz/00000000000000000000000000000000",
        "/org/freedesktop/secrets/session/999", "/org/freedesktop/secrets/prompt/1",
        "/org/freedesktop/secrets/aliases/x",
        "/org/freedesktop/secrets/collection/fuzz/zz",
    ]

    mutating func learn(_ path: String) {
        let parts = path.split(separator: "/")
        guard parts.count >= 4, path.hasPrefix("/org/freedesktop/secrets/") else { return }
        switch parts[3] {
        case "collection" where parts.count == 6: append(path, to: &items)
        case "collection", "aliases": append(path, to: &collections)
        case "session": append(path, to: &sessions)
        case "prompt": append(path, to: &prompts)
        default: break
        }
    }

    private func append(_ path: String, to list: inout [String]) {
        if !list.contains(path) { list.append(path) }
        if list.count > 64 { list.removeFirst() }
    }

    func pick(_ target: Target, _ input: inout InputReader) -> String {
        let pool: [String]
        switch target {
        case .service: return "/org/freedesktop/secrets"
        case .collection: pool = collections
        case .item: pool = items
        case .session: pool = sessions
        case .prompt: pool = prompts
        case .any: pool = collections + items + sessions + prompts + ["/org/freedesktop/secrets"]
        }
        let b = input.byte()
        if pool.isEmpty || b & 15 == 15 { return strays[Int(b >> 4) % strays.count] }
        return pool[Int(b) % pool.count]
    }
}

/// Appends values of `signature` read from the input. Returns false when sd-bus refuses one
/// (the call is then not sent).
func append(_ signature: Substring, to m: OpaquePointer, _ input: inout InputReader, _ paths: KnownPaths) -> Bool {
    var rest = signature
    while let type = completeType(&rest) {
        guard appendOne(type, to: m, &input, paths) else { return false }
    }
    return true
}

private func appendOne(_ type: Substring, to m: OpaquePointer, _ input: inout InputReader, _ paths: KnownPaths)
    -> Bool
{
    let code = type.first!
    switch code {
    case "s", "g":
        let text = code == "g" ? input.word(["", "s", "ay", "a{ss}", "(oayays)", "v"]) : input.word(words)
        return text.withCString { sd_bus_message_append_basic(m, CChar(code.asciiValue!), $0) } >= 0
    case "o":
        return paths.pick(.any, &input).withCString { sd_bus_message_append_basic(m, CChar(111), $0) } >= 0
    case "b":
        var value: Int32 = Int32(input.byte() & 1)
        return sd_bus_message_append_basic(m, CChar(98), &value) >= 0
    case "y", "n", "q", "i", "u", "x", "t", "d":
        var value = UInt64(input.byte()) << 8 | UInt64(input.byte())
        return sd_bus_message_append_basic(m, CChar(code.asciiValue!), &value) >= 0
    case "v":
        let inner = ["s", "ay", "a{ss}", "b", "u", "ao", "v"][Int(input.byte()) % 7]
        guard sd_bus_message_open_container(m, CChar(118), inner) >= 0 else { return false }
        guard appendOne(inner[...], to: m, &input, paths) else { return false }
        return sd_bus_message_close_container(m) >= 0
    case "a":
        let element = type.dropFirst()
        if element == "y" {
            // Byte arrays from tiny to past the provider's limits.
            let sizes = [0, 1, 16, 128, 129, 256, 4097]
            let b = input.byte()
            var bytes = input.take(b & 1 == 0 ? sizes[Int(b >> 1) % sizes.count] : Int(b >> 1))
            if bytes.count < sizes[Int(b >> 1) % sizes.count] && b & 1 == 0 {
                bytes += [UInt8](repeating: 0xA5, count: sizes[Int(b >> 1) % sizes.count] - bytes.count)
            }
            return bytes.withUnsafeBytes { sd_bus_message_append_array(m, CChar(121), $0.baseAddress, $0.count) } >= 0
        }
        let contents = String(element)
        guard sd_bus_message_open_container(m, CChar(97), contents) >= 0 else { return false }
        for _ in 0..<Int(input.byte() % 6) {
            guard appendOne(element, to: m, &input, paths) else { return false }
        }
        return sd_bus_message_close_container(m) >= 0
    case "(", "{":
        let inner = type.dropFirst().dropLast()
        guard sd_bus_message_open_container(m, CChar(code == "(" ? 114 : 101), String(inner)) >= 0 else { return false }
        guard append(inner, to: m, &input, paths) else { return false }
        return sd_bus_message_close_container(m) >= 0
    default:
        return false
    }
}

/// The first complete type of `signature`, removed from it; nil at the end or for a malformed one.
func completeType(_ signature: inout Substring) -> Substring? {
    guard let first = signature.first else { return nil }
    let start = signature.startIndex
    switch first {
    case "a":
        var rest = signature.dropFirst()
        guard completeType(&rest) != nil else { return nil }
        defer { signature = rest }
        return signature[start..<rest.startIndex]
    case "(", "{":
        let close: Character = first == "(" ? ")" : "}"
        var rest = signature.dropFirst()
        while rest.first != close {
            guard completeType(&rest) != nil else { return nil }
        }
        rest = rest.dropFirst()
        defer { signature = rest }
        return signature[start..<rest.startIndex]
    default:
        signature = signature.dropFirst()
        return signature.base[start...start]
    }
}

/// Every object path in `m` from its current position (replies name sessions, items, prompts).
func objectPaths(in m: OpaquePointer) -> [String] {
    var out: [String] = []
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    while sd_bus_message_peek_type(m, &type, &contents) > 0 {
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            guard sd_bus_message_enter_container(m, type, contents) > 0 else { return out }
            out += objectPaths(in: m)
            guard sd_bus_message_exit_container(m) >= 0 else { return out }
        case UInt8(ascii: "o"):
            var value: UnsafePointer<CChar>? = nil
            guard sd_bus_message_read_basic(m, type, &value) > 0, let value else { return out }
            out.append(String(cString: value))
        default:
            guard sd_bus_message_skip(m, String(UnicodeScalar(UInt8(bitPattern: type)))) >= 0 else { return out }
        }
    }
    return out
}
