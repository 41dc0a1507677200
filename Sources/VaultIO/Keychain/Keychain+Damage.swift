// vault: what a keychain listing does with a damaged record (L-KC-17).

import Glibc
public import VaultFormat

/// A damaged record that a ``Keychain`` listing skipped or a removal left, as reported to
/// ``Keychain/onDamagedItem(_:)``. Never a secret.
///
/// ``service`` and ``account`` are set when the record's attributes still open (only its secret
/// is damaged): the item is then known to be in the keychain's scope. When they are `nil` the
/// attributes are damaged too, and the record is reported by every keychain of its item class,
/// since none can tell whose it is. Remove it by ID:
///
/// ```swift
/// try vault.write { try $0.remove(id: damaged.persistentReference) }
/// ```
public struct KeychainDamagedItem: Sendable, CustomStringConvertible {
    /// The item's ID (its persistent reference), from the authenticated index: always known.
    public let persistentReference: ItemID
    /// Generic or internet password, from the index.
    public let itemClass: ItemClass
    /// The service (the server, for an internet password), when the attributes open.
    public let service: String?
    /// The account, when the attributes open.
    public let account: String?
    /// Why the record does not open (`recordCorrupt`, `truncated`, …).
    public let error: VaultFormatError

    /// The report of `damage`.
    public init(_ damage: ItemDamage) {
        persistentReference = damage.entry.itemID
        itemClass = damage.entry.itemClass
        service = damage.attributes.map { damage.entry.itemClass == .internetPassword ? $0.server : $0.service }
        account = damage.attributes?.account
        error = damage.error
    }

    /// Whether the attributes opened, so that the item is known to be the reporting keychain's.
    public var attributesReadable: Bool { account != nil }

    /// For example `item 3f2a… (generic "github.com"/"ci-bot"): an item's secret failed
    /// authentication`, or `item 3f2a… (generic, attributes unreadable): …`.
    public var description: String {
        let kind = itemClass == .internetPassword ? "internet" : "generic"
        guard let service, let account else {
            return "item \(persistentReference) (\(kind), attributes unreadable): \(error.reason)"
        }
        return "item \(persistentReference) (\(kind) \(service.debugDescription)/\(account.debugDescription)): "
            + error.reason
    }
}

extension Keychain {
    /// Gets each damaged record that a listing skipped or a removal could not attribute.
    public typealias DamagedItemHandler = @Sendable (_ damaged: KeychainDamagedItem) -> Void

    /// A copy that reports each damaged record its listings skip (``allKeys()``,
    /// ``allItems(includingValues:)``) and its removals leave (``removeAll()``,
    /// ``remove(_:including:)``) to `handler`, instead of writing a line to standard error.
    ///
    /// One damaged record costs that item only: the listing returns every other item and does
    /// not throw. The handler runs on the calling thread, once per damaged record per call.
    /// `nil` restores the default. Spec: Spec/library-semantics.md, L-KC-17.
    ///
    /// ```swift
    /// let keychain = Keychain(service: "com.example", vault: vault).onDamagedItem { damaged in
    ///     logger.error("skipped \(damaged)")       // the ID, service and account; never a secret
    /// }
    /// let keys = try keychain.allKeys()
    /// ```
    ///
    /// - Parameter handler: Gets each damaged record's report.
    public func onDamagedItem(_ handler: DamagedItemHandler?) -> Keychain {
        with(\.damagedItemHandler, handler)
    }

    /// Every damaged record of this keychain's scope, secrets checked: in-scope items whose secret
    /// fails, and records of this item class whose attributes fail (scope unknown), by ID.
    ///
    /// Decrypts every in-scope secret, so it is for a check at launch or in a health view, not for
    /// every read. Reports nothing to ``onDamagedItem(_:)``: the result is the report.
    ///
    /// - Returns: The damaged records, in index order.
    /// - Throws: ``KeychainError/locked`` when an item of a locked class is in the vault, as the
    ///   listings do.
    public func damagedItems() throws(KeychainError) -> [KeychainDamagedItem] {
        try call {
            try vault.read { snapshot in
                var damaged: [KeychainDamagedItem] = []
                for position in 0..<(try snapshot.index.count) {
                    guard let failure = try damage(at: position, in: snapshot) else { continue }
                    damaged.append(failure)
                }
                return damaged
            }
        }
    }

    /// The damage of the record at `position` when it concerns this keychain: its attributes do not
    /// open and it is of this keychain's class, or they open, are in scope, and the secret does not.
    /// `nil` for a sound record, another scope's or another device's. Throws what is not damage
    /// (a locked class).
    private func damage(at position: Int, in snapshot: VaultSnapshot) throws -> KeychainDamagedItem? {
        do {
            let item = try snapshot.item(at: position, includeSecret: false)
            guard contains(item.entry.itemClass, item.attributes) else { return nil }
            _ = try snapshot.item(at: position, includeSecret: true)
            return nil
        } catch let damage as ItemDamage {
            return concerns(damage) ? KeychainDamagedItem(damage) : nil
        } catch let error as VaultFormatError where error.code == .foreignDevice {
            return nil
        }
    }

    /// Whether `damage` may be this keychain's item: in scope when its attributes open, else of
    /// this keychain's item class.
    func concerns(_ damage: ItemDamage) -> Bool {
        if let attributes = damage.attributes { return contains(damage.entry.itemClass, attributes) }
        return damage.entry.itemClass == itemClass.itemClass
    }

    /// Reports a damaged record to the handler, or as one line on standard error.
    func reportDamage(_ damaged: KeychainDamagedItem) {
        Self.reportDamage(damaged, to: damagedItemHandler, by: "keychain (service \(String(reflecting: service)))")
    }

    /// Reports a damaged record to `handler`, or as one line on standard error naming `caller`.
    static func reportDamage(_ damaged: KeychainDamagedItem, to handler: DamagedItemHandler?, by caller: String) {
        if let handler {
            handler(damaged)
            return
        }
        let line = "vault: \(caller) skipped a damaged record: \(damaged); remove it by ID or restore a backup\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}

extension VaultTransaction {
    /// The attributes of `entry`'s item as a keychain scan reads them: `nil` for another device's item;
    /// ``ItemDamage`` (naming the record) when its attributes are damaged; any other error thrown.
    func scannedAttributes(of entry: IndexEntry) throws -> ItemAttributes? {
        do {
            return try attributes(for: entry.itemID)
        } catch let error as VaultFormatError where error.code == .foreignDevice {
            return nil
        } catch let error as VaultFormatError where ItemDamage.isDamage(error) {
            throw ItemDamage(entry: entry, attributes: nil, error: error)
        }
    }
    /// Removes every item whose attributes open here and satisfy `isRemoved`, the one scan of the
    /// keychain removals: another device's item is never removed (L-PC-4), and a record whose
    /// attributes are damaged is left and returned when `isReported` claims it (L-KC-17).
    ///
    /// - Returns: How many items were removed, and the damaged records left to report.
    /// - Throws: Any error but damage (``VaultIOError/Code/locked`` for a locked class); nothing
    ///   is removed then, since the caller's write does not commit.
    mutating func removeItems(
        reportingDamage isReported: (ItemDamage) -> Bool,
        where isRemoved: (IndexEntry, ItemAttributes) -> Bool
    ) throws -> (removed: Int, unattributed: [KeychainDamagedItem]) {
        var removed = 0
        var unattributed: [KeychainDamagedItem] = []
        for entry in try entries {
            let attributes: ItemAttributes?
            do {
                attributes = try scannedAttributes(of: entry)  // nil: another device's (L-PC-4)
            } catch let damage as ItemDamage {
                if isReported(damage) { unattributed.append(KeychainDamagedItem(damage)) }
                continue
            }
            guard let attributes, isRemoved(entry, attributes) else { continue }
            if try remove(id: entry.itemID) { removed += 1 }
        }
        return (removed, unattributed)
    }
}
