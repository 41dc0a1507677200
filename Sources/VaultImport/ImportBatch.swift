// vault: what an importer read from an export, before anything is written.

public import VaultIO

/// One entry of an export, mapped to a keychain item.
///
/// Its description and mirror leave the secret out, so printing or dumping an entry shows none.
public struct ImportEntry: Sendable, CustomStringConvertible, CustomReflectable {
    /// How a report names the entry: `GitHub (Internet)`, `row 3 (db, app)`, `item 2`.
    public var name: String
    /// Generic or internet password.
    public var itemClass: ItemClass
    /// The protection class the export asked for (only the generic layouts carry one); `nil`
    /// takes ``ImportOptions/defaultAccessibility``.
    public var accessibility: ProtectionClass? = nil
    /// The item's attributes, dates included.
    public var attributes: ItemAttributes
    /// The secret's bytes. Ordinary memory: the export is plaintext in this process already.
    var secret: [UInt8]
    /// The item ID the export asked for (only the generic layouts carry one).
    public var id: ItemID? = nil
    /// The group path (KeePassXC) or folder (Bitwarden) the entry was in; it tells apart
    /// entries that would otherwise share a primary key.
    public var folder = ""

    /// The number of bytes of the secret.
    public var secretLength: Int { secret.count }

    public var description: String { "ImportEntry(\(name), \(itemClass), secret: \(secret.count) bytes)" }

    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "itemClass": itemClass, "secretLength": secret.count])
    }
}

/// An entry that was not imported, and why.
public struct ImportSkip: Equatable, Sendable {
    /// Why an entry was not imported.
    public enum Reason: Equatable, Sendable, CustomStringConvertible {
        /// Left out by a documented rule of the format: `in the recycle bin`, `in the trash`,
        /// `cards are not imported`.
        case excluded(String)
        /// The entry breaks a rule of the generic layouts: `unknown class 'x'`, `no secret`.
        case invalid(String)
        /// A duplicate: it has the same primary key as the earlier entry of the file named here.
        case samePrimaryKey(as: String)
        /// A duplicate: an item with its primary key is in the vault, and
        /// ``ImportOptions/replaceExisting`` is off.
        case alreadyInVault
        /// A duplicate: the item ID it asks for belongs to another item of the vault.
        case idTaken
        /// The vault refused the item (an access group this vault cannot write, for example).
        case refused(VaultFormatError)

        /// Whether the entry counts as a duplicate, which refuses the whole import unless
        /// ``ImportOptions/skipDuplicates`` is on.
        public var isDuplicate: Bool {
            switch self {
            case .samePrimaryKey, .alreadyInVault, .idTaken: true
            case .excluded, .invalid, .refused: false
            }
        }

        public var description: String {
            switch self {
            case .excluded(let reason), .invalid(let reason): reason
            case .samePrimaryKey(let earlier): "same primary key as \(earlier)"
            case .alreadyInVault: "already in the vault"
            case .idTaken: "its id is taken by another item"
            case .refused(let error): error.reason
            }
        }
    }

    /// The entry's name (``ImportEntry/name``, or `row N` / `item N` for one that could not be read).
    public var entry: String
    /// Why it was skipped.
    public var reason: Reason

    /// A skip of `entry` for `reason`.
    public init(entry: String, reason: Reason) {
        self.entry = entry
        self.reason = reason
    }
}

/// What an importer read from an export: the entries to import, the entries it left out and
/// why, and notes about fields it could not keep.
///
/// Reading writes nothing: ``importItems(into:options:)`` or ``apply(to:options:)`` does.
public struct ImportBatch: Sendable {
    /// The entries, in the order of the file.
    public internal(set) var entries: [ImportEntry] = []
    /// The entries left out while reading, in the order of the file.
    public internal(set) var skipped: [ImportSkip] = []
    /// Fields that were not imported, or kept elsewhere: `GitHub: TOTP not imported`.
    public internal(set) var notes: [String] = []

    mutating func skip(_ entry: String, _ reason: ImportSkip.Reason) {
        skipped.append(ImportSkip(entry: entry, reason: reason))
    }
}
