// vault: reading what can be read of a vault with damaged records, item by item.

/// A record that failed to open for a reason other than a missing key: its bytes were damaged
/// or tampered with.
///
/// Carries the index entry (so the item's ID is always known), the attributes when they still
/// open (only the secret is damaged), and the error. Never a secret.
///
/// ```swift
/// do { _ = try snapshot.item(at: 3, includeSecret: true) }
/// catch let damage as ItemDamage { print("item \(damage.entry.itemID) is damaged: \(damage.error.reason)") }
/// ```
public struct ItemDamage: Error, Sendable, CustomStringConvertible {
    /// The item's index entry: its ID, classes, version and sizes.
    public let entry: IndexEntry
    /// The attributes, when they authenticate and only the secret is damaged.
    public let attributes: ItemAttributes?
    /// Why the record does not open (`recordCorrupt`, `truncated`, …).
    public let error: VaultFormatError

    /// Pairs an entry with the error its record gave.
    public init(entry: IndexEntry, attributes: ItemAttributes?, error: VaultFormatError) {
        self.entry = entry
        self.attributes = attributes
        self.error = error
    }

    /// For example `item 3f2a… (generic "github.com"/"ci-bot"): an item's secret failed authentication`.
    /// Attribute values appear only when they authenticated, quoted with control characters escaped.
    public var description: String { "item \(entry.itemID)\(what): \(error.reason)" }

    /// ` (generic "service"/"account")` when the attributes are readable, else empty.
    private var what: String {
        guard let attributes else { return "" }
        if entry.itemClass == .internetPassword {
            return " (internet \(attributes.server.debugDescription)/\(attributes.account.debugDescription))"
        }
        return " (generic \(attributes.service.debugDescription)/\(attributes.account.debugDescription))"
    }

    /// Whether `error` means the bytes are damaged, as opposed to a key that is not held here
    /// (`keyUnavailable`, `foreignDevice`, `deviceSecretRequired`).
    public static func isDamage(_ error: VaultFormatError) -> Bool {
        ![.keyUnavailable, .foreignDevice, .deviceSecretRequired].contains(error.code)
    }
}

/// What ``VaultSnapshot/salvage(includeSecrets:)`` could read.
public struct SalvagedItems: Sendable {
    /// Every item that opened, in index order.
    public var items: [DecodedItem] = []
    /// Every item whose record is damaged, in index order.
    public var damaged: [ItemDamage] = []
    /// Items whose keys are not held here (another device, a locked or base-scope class).
    public var unavailable: [IndexEntry] = []
}

extension VaultSnapshot {
    /// Decrypts one item, turning damage into ``ItemDamage``.
    ///
    /// - Parameters:
    ///   - position: The entry's position in the index.
    ///   - includeSecret: Whether to decrypt the secret too.
    /// - Returns: The item.
    /// - Throws: ``ItemDamage`` when the record is damaged; ``VaultFormatError`` `keyUnavailable`
    ///   or `foreignDevice` when its key is not held here; the source's read error (I/O).
    public func item(at position: Int, includeSecret: Bool) throws -> DecodedItem {
        let index = try self.index
        let entry = index.entry(at: position)
        let bytes: ArraySlice<UInt8>
        do {
            bytes = try recordBytes(at: position)
        } catch let error as VaultFormatError {
            throw ItemDamage(entry: entry, attributes: nil, error: error)
        }
        return try decode(bytes, entry: entry, includeSecret: includeSecret)
    }

    /// Reads every item that opens, and reports each damaged one instead of failing the whole read.
    ///
    /// A damaged record says nothing about the others: each record has its own nonce and tags
    /// (R-REC-1), and the index (authenticated as a whole) tells where each one is.
    ///
    /// - Parameter includeSecrets: Whether to decrypt secrets too (which also checks them).
    /// - Returns: The readable items, the damaged ones and the unavailable ones.
    /// - Throws: Only the source's read error (I/O); damage never throws.
    public func salvage(includeSecrets: Bool) throws -> SalvagedItems {
        let scan = try scanItems(into: ItemCollector.self, includeSecrets: includeSecrets, salvage: true)
        return SalvagedItems(items: scan.items, damaged: scan.damaged, unavailable: scan.unavailable)
    }
}
