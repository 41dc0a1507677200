// vault: the seed libraries' wider removal, for apps that rely on it.

import VaultFormat

/// Which copies of a key ``Keychain/remove(_:including:)`` removes besides the keychain's own item.
///
/// A ``Keychain`` addresses one item per key: its access group and its synchronizable flag are
/// part of the item's identity (L-KC-2). KeychainAccess, which queries without an access group and
/// with `kSecAttrSynchronizableAny`, removes every copy. An app that relies on that, typically to
/// make sure a token is gone at sign-out, asks for it here.
///
/// Spec: Spec/library-semantics.md, "Keychain API decisions" (L-KC-13).
public struct KeychainRemovalScope: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The key's items in every access group, not only the keychain's.
    public static let anyAccessGroup = KeychainRemovalScope(rawValue: 1 << 0)
    /// Synchronizable and non-synchronizable items alike.
    public static let anySynchronizable = KeychainRemovalScope(rawValue: 1 << 1)
    /// What KeychainAccess's `remove(_:)` removes: every access group, synchronizable or not.
    public static let keychainAccess: KeychainRemovalScope = [.anyAccessGroup, .anySynchronizable]
}

extension Keychain {
    /// Removes the item under `key` and, as `scope` says, its copies in other access groups or
    /// of the other synchronizable flag, in one transaction.
    ///
    /// ```swift
    /// try keychain.remove("token", including: .keychainAccess)   // every copy, as KeychainAccess does
    /// ```
    ///
    /// A record of this item class whose attributes are damaged cannot be told to be a copy of the
    /// key: it is left and reported to ``onDamagedItem(_:)`` (L-KC-17).
    ///
    /// - Returns: How many items were removed.
    /// - Throws: ``KeychainError/emptyKey``; ``KeychainError/locked`` when an item whose attributes
    ///   cannot be read is in the vault (nothing is removed then).
    @discardableResult
    public func remove(_ key: String, including scope: KeychainRemovalScope) throws(KeychainError) -> Int {
        let account = try account(for: key)
        let (removed, unattributed) = try call {
            try vault.write { txn in
                try txn.removeItems(
                    // Whose it is cannot be told: left, and reported (L-KC-17).
                    reportingDamage: { $0.entry.itemClass == itemClass.itemClass },
                    where: { entry, attributes in
                        itemClass.matches(entry.itemClass, attributes) && attributes.account == account
                            && (scope.contains(.anyAccessGroup) || attributes.accessGroup == (accessGroup ?? ""))
                            && (scope.contains(.anySynchronizable) || attributes.synchronizable == isSynchronizable)
                    }
                )
            }
        }
        unattributed.forEach(reportDamage)
        return removed
    }
}
