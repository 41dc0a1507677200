// vaulttool: one item in the generic JSON layout (export, import, list, get --json).

import Foundation
import VaultIO

/// An item as the generic layout writes it. Spec: Spec/cli.md, "Generic JSON layout".
///
/// Every key is always written, in sorted order; on import every key but the secret
/// is optional and a missing key takes its default (empty string, 0, false, null).
struct ItemRecord: Codable {
    var id: String?
    var itemClass: ItemClass = .genericPassword
    var accessibility: ProtectionClass = .whenUnlocked
    var attributes = ItemAttributes()
    /// The generation the item was last written in (`list`, `get --json`, `inspect --items --json`).
    var version: UInt64?
    /// The secret: text when it is valid UTF-8, else base64 in ``secretBase64``.
    var secret: String?
    var secretBase64: String?
    var secretLength: Int?

    init(id: String? = nil, itemClass: ItemClass, accessibility: ProtectionClass, attributes: ItemAttributes) {
        self.id = id
        self.itemClass = itemClass
        self.accessibility = accessibility
        self.attributes = attributes
    }

    /// An item read from a vault; `secret` only when it is to be shown.
    init(_ item: DecodedItem, includeSecret: Bool) {
        self.init(
            id: item.entry.itemID.description,
            itemClass: item.entry.itemClass,
            accessibility: item.entry.protectionClass,
            attributes: item.attributes
        )
        version = item.entry.version
        secretLength = item.entry.secretLength
        if includeSecret, let bytes = item.secret?.copyBytes() { setSecret(bytes) }
    }

    mutating func setSecret(_ bytes: [UInt8]) {
        if let text = String(validatingUTF8CString: bytes) {
            secret = text
        } else {
            secretBase64 = Data(bytes).base64EncodedString()
        }
        secretLength = bytes.count
    }

    /// The secret's bytes, from `secret` or `secretBase64`.
    func secretBytes() throws -> [UInt8] {
        if let secret { return Array(secret.utf8) }
        if let secretBase64 {
            guard let data = Data(base64Encoded: secretBase64) else {
                throw ImportProblem("secretBase64 is not base64")
            }
            return Array(data)
        }
        throw ImportProblem("no secret")
    }

    // MARK: - Codable

    enum Key: String, CodingKey {
        case id, version, secret, secretBase64, secretLength, accessibility, preserved
        case itemClass = "class"
        case service, account, accessGroup, label, comment, description, creator, type, generic
        case created, modified, synchronizable, invisible, negative
        case server, `protocol`, authenticationType, port, path, securityDomain
    }

    struct Preserved: Codable {
        var tag: UInt8
        var value: String
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func text(_ key: Key) throws -> String { try c.decodeIfPresent(String.self, forKey: key) ?? "" }
        id = try c.decodeIfPresent(String.self, forKey: .id)
        let className = try c.decodeIfPresent(String.self, forKey: .itemClass) ?? "genericPassword"
        guard let itemClass = ItemClass.allCases.first(where: { $0.description == className }) else {
            throw ImportProblem("unknown class '\(className)'")
        }
        self.itemClass = itemClass
        let accessName = try c.decodeIfPresent(String.self, forKey: .accessibility) ?? "whenUnlocked"
        guard let accessibility = ProtectionClass(name: accessName) else {
            throw ImportProblem("unknown accessibility '\(accessName)'")
        }
        self.accessibility = accessibility
        var a = ItemAttributes(service: try text(.service), account: try text(.account))
        a.accessGroup = try text(.accessGroup)
        a.label = try text(.label)
        a.comment = try text(.comment)
        a.itemDescription = try text(.description)
        a.creator = try c.decodeIfPresent(UInt32.self, forKey: .creator) ?? 0
        a.type = try c.decodeIfPresent(UInt32.self, forKey: .type) ?? 0
        if let generic = try c.decodeIfPresent(String.self, forKey: .generic) {
            guard let data = Data(base64Encoded: generic) else { throw ImportProblem("generic is not base64") }
            a.generic = Array(data)
        }
        a.creationDate = try ItemDates.parse(try c.decodeIfPresent(String.self, forKey: .created))
        a.modificationDate = try ItemDates.parse(try c.decodeIfPresent(String.self, forKey: .modified))
        a.synchronizable = try c.decodeIfPresent(Bool.self, forKey: .synchronizable) ?? false
        a.isInvisible = try c.decodeIfPresent(Bool.self, forKey: .invisible) ?? false
        a.isNegative = try c.decodeIfPresent(Bool.self, forKey: .negative) ?? false
        a.server = try text(.server)
        a.protocol = try text(.protocol)
        a.authenticationType = try text(.authenticationType)
        a.port = try c.decodeIfPresent(UInt16.self, forKey: .port) ?? 0
        a.path = try text(.path)
        a.securityDomain = try text(.securityDomain)
        for item in try c.decodeIfPresent([Preserved].self, forKey: .preserved) ?? [] {
            guard let data = Data(base64Encoded: item.value) else { throw ImportProblem("preserved is not base64") }
            a.preserved.append(PreservedAttribute(tag: item.tag, value: Array(data)))
        }
        attributes = a
        version = try c.decodeIfPresent(UInt64.self, forKey: .version)
        secret = try c.decodeIfPresent(String.self, forKey: .secret)
        secretBase64 = try c.decodeIfPresent(String.self, forKey: .secretBase64)
        secretLength = try c.decodeIfPresent(Int.self, forKey: .secretLength)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        let a = attributes
        try c.encode(id, forKey: .id)
        try c.encode(itemClass.description, forKey: .itemClass)
        try c.encode(accessibility.description, forKey: .accessibility)
        try c.encode(a.service, forKey: .service)
        try c.encode(a.account, forKey: .account)
        try c.encode(a.accessGroup, forKey: .accessGroup)
        try c.encode(a.label, forKey: .label)
        try c.encode(a.comment, forKey: .comment)
        try c.encode(a.itemDescription, forKey: .description)
        try c.encode(a.creator, forKey: .creator)
        try c.encode(a.type, forKey: .type)
        try c.encode(Data(a.generic).base64EncodedString(), forKey: .generic)
        try c.encode(ItemDates.format(a.creationDate), forKey: .created)
        try c.encode(ItemDates.format(a.modificationDate), forKey: .modified)
        try c.encode(a.synchronizable, forKey: .synchronizable)
        try c.encode(a.isInvisible, forKey: .invisible)
        try c.encode(a.isNegative, forKey: .negative)
        try c.encode(a.server, forKey: .server)
        try c.encode(a.protocol, forKey: .protocol)
        try c.encode(a.authenticationType, forKey: .authenticationType)
        try c.encode(a.port, forKey: .port)
        try c.encode(a.path, forKey: .path)
        try c.encode(a.securityDomain, forKey: .securityDomain)
        let preserved = a.preserved.map { Preserved(tag: $0.tag, value: Data($0.value).base64EncodedString()) }
        try c.encode(preserved, forKey: .preserved)
        if let version { try c.encode(version, forKey: .version) }
        if let secretLength { try c.encode(secretLength, forKey: .secretLength) }
        if let secret { try c.encode(secret, forKey: .secret) }
        if let secretBase64 { try c.encode(secretBase64, forKey: .secretBase64) }
    }
}

extension String {
    /// Text for bytes that are valid UTF-8 without NUL, else `nil`.
    fileprivate init?(validatingUTF8CString bytes: [UInt8]) {
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        self = text
    }
}

/// Item dates: milliseconds since the Unix epoch in the vault, RFC 3339 text in JSON, 0 as `null`.
enum ItemDates {
    static func format(_ milliseconds: Int64) -> String? {
        guard milliseconds != 0 else { return nil }
        return RFC3339.format(milliseconds, fractionalSeconds: true)
    }

    static func parse(_ text: String?) throws -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        guard let date = date(text) else { throw ImportProblem("'\(text)' is not an RFC 3339 date") }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// Parses `2026-01-01T00:00:00Z`, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Why one imported entry was refused; the entry is skipped and the reason reported.
struct ImportProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
