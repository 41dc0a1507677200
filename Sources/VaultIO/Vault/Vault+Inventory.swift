// vault: listing a vault's items without their secrets, and the debug description.

public import VaultFormat

/// One item of ``Vault/inventory()``: its index entry and, when this vault can
/// open them, its attributes. Never its secret.
public struct VaultInventoryItem: Sendable, CustomStringConvertible {
    /// Whether the item can be read here, now.
    public enum Availability: Sendable, Hashable, CustomStringConvertible {
        /// The attributes (and the secret) open with the keys held.
        case readable
        /// The class key is not held: the vault is locked, or was opened with a base-scope keyslot.
        case locked
        /// A `…ThisDeviceOnly` item written on another machine (another device secret).
        case otherDevice
        /// The record's attributes do not open with the keys held: its bytes are damaged (L-KC-17).
        case damaged

        public var description: String {
            switch self {
            case .readable: "readable"
            case .locked: "locked"
            case .otherDevice: "other device"
            case .damaged: "damaged"
            }
        }
    }

    /// The index entry: ID (the persistent reference), classes, version, sizes.
    public let entry: IndexEntry
    /// The attributes, when ``availability`` is ``Availability/readable``.
    public let attributes: ItemAttributes?
    /// Whether the item opens here.
    public let availability: Availability

    /// For example `generic "mail"/"alice" [whenUnlocked] 3f2a…` or `<locked> [whenUnlocked] 3f2a…`.
    public var description: String {
        let what: String
        if let attributes {
            let scope = entry.itemClass == .internetPassword ? attributes.server : attributes.service
            let group = attributes.accessGroup.isEmpty ? "" : " group \"\(attributes.accessGroup)\""
            let kind = entry.itemClass == .internetPassword ? "internet" : "generic"
            what = "\(kind) \"\(scope)\"/\"\(attributes.account)\"\(group)"
        } else {
            what = "<\(availability)>"
        }
        return "\(what) [\(entry.protectionClass)] \(entry.itemID)"
    }
}

extension Vault: CustomStringConvertible {
    /// The path and lock state only: cheap, and safe in logs (no attributes, no file I/O).
    public var description: String {
        "Vault(\(path), \(keyState.withLock { $0.isLocked } ? "locked" : "unlocked"))"
    }
}

extension Vault: CustomDebugStringConvertible {
    /// Every item of the newest generation, with attributes where they open. Decrypts no secret.
    ///
    /// Items of another device, items of locked classes and damaged records are listed
    /// with their availability instead of being skipped or failing the call (L-KC-17).
    ///
    /// - Throws: Errors from opening the file (I/O, corrupt header or index).
    public func inventory() throws -> [VaultInventoryItem] {
        try read { snapshot in
            let index = try snapshot.index
            return try (0..<index.count).map { position in
                let entry = index.entry(at: position)
                do {
                    return VaultInventoryItem(
                        entry: entry,
                        attributes: try snapshot.attributes(at: position),
                        availability: .readable
                    )
                } catch let error as VaultFormatError where error.code == .keyUnavailable {
                    return VaultInventoryItem(entry: entry, attributes: nil, availability: .locked)
                } catch let error as VaultFormatError where error.code == .foreignDevice {
                    return VaultInventoryItem(entry: entry, attributes: nil, availability: .otherDevice)
                } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
                    return VaultInventoryItem(entry: entry, attributes: nil, availability: .damaged)
                }
            }
        }
    }

    /// The path, lock state and items, one per line, without any secret. Decrypts every
    /// item's attributes: for debugging, not for logs (``description`` is what
    /// string interpolation shows).
    public var debugDescription: String {
        var lines = [description]
        do {
            lines += try inventory().map { "  " + $0.description }
        } catch {
            lines.append("  unreadable: \(error)")
        }
        return lines.joined(separator: "\n")
    }
}
