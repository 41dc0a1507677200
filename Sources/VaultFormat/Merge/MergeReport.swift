// vault: what a merge decided, and the error of a merge that cannot be made.

/// One side of a merge.
public enum MergeSide: String, Sendable, Hashable {
    /// The vault merged into (git's `%A`, the vault a Syncthing conflict copy belongs to).
    case ours
    /// The vault merged in.
    case theirs
}

/// An item that both sides changed (or that cannot be compared), and how the merge resolved it.
///
/// Spec: Spec/merge.md, "Conflicts" (R-MRG-7, R-MRG-8).
public struct MergeConflict: Sendable, Hashable {
    /// Why the item is a conflict.
    public enum Kind: String, Sendable, Hashable {
        /// Both sides changed the item since the ancestor (or, without one, hold different versions).
        case bothChanged
        /// One side changed the item and the other deleted it since the ancestor.
        case changedAndDeleted
        /// Two different items have the same primary key.
        case samePrimaryKey
        /// One version cannot be decrypted here (another device's `…ThisDeviceOnly` item).
        case unreadable
    }

    /// The item's ID.
    public let itemID: ItemID
    /// Why it is a conflict.
    public let kind: Kind
    /// The side whose version the item keeps, or `nil` when the item ends deleted.
    public let winner: MergeSide?
    /// The ID of the conflict copy that keeps the losing version, or `nil` when none was made.
    public let copyID: ItemID?
    /// The winning (or, when deleted, the losing) version's service, for listing.
    public let service: String
    /// The winning (or, when deleted, the losing) version's account, for listing.
    public let account: String
}

/// What a merge of two vault files did (`Vault.merge` in VaultIO, Spec/merge.md).
public struct MergeReport: Sendable {
    /// The generation of the merged file.
    public let generation: UInt64
    /// Whether an ancestor was given (a three-way merge).
    public let threeWay: Bool
    /// The side whose master key the merged file has (R-MRG-11).
    public let keysFrom: MergeSide
    /// The side whose keyslots the merged file has.
    public let keyslotsFrom: MergeSide
    /// Items added to ours from theirs.
    public let added: Int
    /// Items of ours replaced by theirs' version.
    public let updated: Int
    /// Items of ours deleted because theirs deleted them.
    public let deleted: Int
    /// Deletion records added to ours and conflict copies removed from it (R-MRG-8, R-MRG-9).
    public let otherChanges: Int
    /// Recipient stanzas ours gained from theirs or lost to a removal made since the ancestor
    /// (R-MRG-15, format 1.2).
    public let recipientChanges: Int
    /// Every conflict, ordered by item ID.
    public let conflicts: [MergeConflict]
    /// Records left out because they could not be carried (R-MRG-13), when the options allowed it.
    public let droppedUnreadable: [ItemID]
    /// Items that theirs added, changed or deleted while its master key is one the merged file
    /// does not keep (R-MRG-11): a copy under a key a rekey retired, as a recipient removed by that
    /// rekey would hold. They are applied (a teammate's commit racing the rekey looks the same) and
    /// listed here, so that the person merging reviews them; ordered by item ID.
    public let changedUnderRetiredKey: [ItemID]

    /// Whether the merge changed nothing in ours (no write is needed when ours is the target).
    public var changesOurs: Bool {
        added + updated + deleted + otherChanges + recipientChanges > 0 || !conflicts.isEmpty || keysFrom == .theirs
            || keyslotsFrom == .theirs
    }
}

/// What a merge may do with a record that cannot be carried into the merged file.
public struct MergeOptions: Sendable {
    /// What to do with records of the side whose master key is not kept that cannot be
    /// decrypted here (so cannot be sealed again under the kept key): refuse (the default), or drop
    /// them and list them in ``MergeReport/droppedUnreadable``.
    public enum Handling: Sendable { case refuse, drop }

    /// See ``Handling``.
    public var unreadableRecords: Handling
    /// Which side's master key the merged file keeps when the two differ (one side was rekeyed).
    /// `nil` (the default): ours when, with an ancestor, only ours changed it; otherwise the merge
    /// fails with ``VaultMergeError/Code/masterKeysDiffer`` (R-MRG-11).
    public var masterKey: MergeSide?

    /// Creates merge options.
    public init(unreadableRecords: Handling = .refuse, masterKey: MergeSide? = nil) {
        self.unreadableRecords = unreadableRecords
        self.masterKey = masterKey
    }
}

/// Why two vault files cannot be merged.
///
/// Only ``code`` takes part in `==`.
public struct VaultMergeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The files hold different vaults (different vault IDs, R-MRG-1).
        public static let differentVaults = Code("differentVaults")
        /// A file was opened without its master key (R-MRG-2).
        public static let masterKeyRequired = Code("masterKeyRequired")
        /// The files have different master keys and the caller did not say which to keep (R-MRG-11).
        public static let masterKeysDiffer = Code("masterKeysDiffer")
        /// Records of the side whose master key is not kept cannot be read here (R-MRG-13).
        public static let unreadableRecords = Code("unreadableRecords")
        /// The files put one access group in different key domains, or two groups in one
        /// domain (format 2.0, R-MRG-16).
        public static let accessGroupsDiffer = Code("accessGroupsDiffer")
        /// In a three-way merge, a side does not descend from the ancestor: an older generation,
        /// or an item older than the ancestor's (an older copy put back, R-MRG-17).
        public static let notDescendant = Code("notDescendant")
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for a person; never a secret or an attribute.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: VaultMergeError, rhs: VaultMergeError) -> Bool { lhs.code == rhs.code }

    public var description: String { reason.isEmpty ? code.name : "\(code.name): \(reason)" }
}
