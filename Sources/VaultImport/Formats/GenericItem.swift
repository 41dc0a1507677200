// vault: one item of the generic layouts, as read from an export.

import FoundationEssentials
import VaultIO

/// An item of the generic JSON layout (what `vaulttool export` writes), or of a generic CSV row.
///
/// Every key but the secret is optional; a missing key takes its default (empty string, 0,
/// false, no date). Spec: Spec/cli.md, "The generic JSON layout".
struct GenericItem: Decodable {
    var id: String?
    var itemClass: ItemClass
    var accessibility: ProtectionClass
    var attributes: ItemAttributes
    var secret: String?
    var secretBase64: String?

    init(id: String?, itemClass: ItemClass, accessibility: ProtectionClass, attributes: ItemAttributes) {
        self.id = id
        self.itemClass = itemClass
        self.accessibility = accessibility
        self.attributes = attributes
    }

    /// The class named `name` (`genericPassword` when absent).
    static func itemClass(_ name: String?) throws -> ItemClass {
        let name = name ?? "genericPassword"
        guard let itemClass = ItemClass.allCases.first(where: { $0.description == name }) else {
            throw ImportProblem("unknown class '\(name)'", field: "class")
        }
        return itemClass
    }

    /// The protection class named `name` (`whenUnlocked` when absent).
    static func accessibility(_ name: String?) throws -> ProtectionClass {
        let name = name ?? "whenUnlocked"
        guard let accessibility = ProtectionClass(name: name) else {
            throw ImportProblem("unknown accessibility '\(name)'", field: "accessibility")
        }
        return accessibility
    }

    /// The secret's bytes, from `secret` or `secretBase64`.
    ///
    /// - Throws: ``ImportProblem`` naming the key, never quoting the value.
    func secretBytes() throws -> [UInt8] {
        if let secret { return Array(secret.utf8) }
        if let secretBase64 {
            guard let data = Data(base64Encoded: secretBase64) else {
                throw ImportProblem("secretBase64 is not base64", field: "secretBase64")
            }
            return Array(data)
        }
        throw ImportProblem("no secret", field: "secret")
    }

    // MARK: - Decodable

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: GenericJSONLayout.ItemKey.self)
        func text(_ key: GenericJSONLayout.ItemKey) throws -> String {
            try c.decodeIfPresent(String.self, forKey: key) ?? ""
        }
        id = try c.decodeIfPresent(String.self, forKey: .id)
        itemClass = try Self.itemClass(try c.decodeIfPresent(String.self, forKey: .itemClass))
        accessibility = try Self.accessibility(try c.decodeIfPresent(String.self, forKey: .accessibility))
        var a = ItemAttributes(service: try text(.service), account: try text(.account))
        a.accessGroup = try text(.accessGroup)
        a.label = try text(.label)
        a.comment = try text(.comment)
        a.itemDescription = try text(.description)
        a.creator = try c.decodeIfPresent(UInt32.self, forKey: .creator) ?? 0
        a.type = try c.decodeIfPresent(UInt32.self, forKey: .type) ?? 0
        if let generic = try c.decodeIfPresent(String.self, forKey: .generic) {
            guard let data = Data(base64Encoded: generic) else {
                throw ImportProblem("generic is not base64", field: "generic")
            }
            a.generic = Array(data)
        }
        a.creationDate = try ExportDates.parse(try c.decodeIfPresent(String.self, forKey: .created))
        a.modificationDate = try ExportDates.parse(try c.decodeIfPresent(String.self, forKey: .modified))
        a.synchronizable = try c.decodeIfPresent(Bool.self, forKey: .synchronizable) ?? false
        a.isInvisible = try c.decodeIfPresent(Bool.self, forKey: .invisible) ?? false
        a.isNegative = try c.decodeIfPresent(Bool.self, forKey: .negative) ?? false
        a.server = try text(.server)
        a.protocol = try text(.protocol)
        a.authenticationType = try text(.authenticationType)
        a.port = try c.decodeIfPresent(UInt16.self, forKey: .port) ?? 0
        a.path = try text(.path)
        a.securityDomain = try text(.securityDomain)
        for item in try c.decodeIfPresent([GenericJSONLayout.Preserved].self, forKey: .preserved) ?? [] {
            guard let data = Data(base64Encoded: item.value) else {
                throw ImportProblem("preserved is not base64", field: "preserved")
            }
            a.preserved.append(PreservedAttribute(tag: item.tag, value: Array(data)))
        }
        attributes = a
        secret = try c.decodeIfPresent(String.self, forKey: .secret)
        secretBase64 = try c.decodeIfPresent(String.self, forKey: .secretBase64)
    }
}

extension ImportBatch {
    /// Adds a generic-layout item, or skips it with the reason.
    mutating func add(_ item: GenericItem, name: String) {
        do {
            var display = name
            let a = item.attributes
            let place = item.itemClass == .internetPassword ? a.server : a.service
            if !place.isEmpty || !a.account.isEmpty {
                display += " (\(place)\(a.account.isEmpty ? "" : ", \(a.account)"))"
            }
            var id: ItemID?
            if let text = item.id {
                guard let value = ItemID(hex: text) else { throw ImportProblem("id is not 32 hex digits") }
                id = value
            }
            if item.itemClass == .genericPassword && a.hasInternetFields {
                throw ImportProblem("a generic password with internet attributes")
            }
            entries.append(
                ImportEntry(
                    name: display,
                    itemClass: item.itemClass,
                    accessibility: item.accessibility,
                    attributes: a,
                    secret: try item.secretBytes(),
                    id: id
                )
            )
        } catch let problem as ImportProblem {
            skip(name, .invalid(problem.reason))
        } catch {
            skip(name, .invalid("\(error)"))
        }
    }
}
