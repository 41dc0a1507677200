// vault: what a vault file shows without a credential, as `vaulttool inspect` reports it.

/// What a vault file's plain header shows, checked for structure, and compared with what this
/// account recorded of the vault; authenticated when a credential opened it too.
///
/// This is `vaulttool inspect` as a library, in the manner of age's `inspect.Inspect`: the
/// command reads it once and prints it (its JSON form is this type's `Encodable` form).
///
/// ```swift
/// var inspection = try VaultInspection(path: "team.vault")
/// if inspection.structure.ok { try inspection.authenticate(with: try VaultFileReader(path: "team.vault").open(with: credentials)) }
/// for warning in inspection.warnings { print("Warning: \(warning)") }
/// ```
///
/// Without a credential the values are unauthenticated: anyone who can write the file can
/// change them.
///
/// Spec: Spec/cli.md, "inspect".
public struct VaultInspection: Encodable, Sendable {
    /// A format version.
    public struct Version: Encodable, Sendable {
        public let major: Int
        public let minor: Int
    }
    /// A keyslot's Argon2id cost.
    public struct KDF: Encodable, Sendable {
        public let algorithm = "argon2id"
        public let memoryKiB: Int
        public let iterations: Int
        public let lanes: Int
    }
    /// One keyslot.
    public struct Slot: Encodable, Sendable {
        public let index: Int
        /// `password`, `keyFile`, `device`, `tpm2`, …
        public let kind: String
        /// `master` or `base`.
        public let scope: String
        public let kdf: KDF?
        /// Whether the cost is below the floor (R-KS-4).
        public let weak: Bool
        /// A TPM2 keyslot's policy (Spec/tpm2.md L-TPM-5): unauthenticated, as every keyslot here.
        public let tpm2: TPM2Policy?
    }
    /// A TPM2 keyslot's policy.
    public struct TPM2Policy: Encodable, Sendable {
        public let pcrs: [Int]
        public let pin: Bool
    }
    /// Section sizes in bytes. Formats 1 and 2: header, index, records. Format 3: the header
    /// (commit slots and header chunk), the committed heap, the bytes after it that no commit
    /// reaches (R3-SLT-6), and, once a credential authenticated the file, the bytes the current
    /// commit reaches.
    public struct Sizes: Encodable, Sendable {
        public let header: Int
        public let index: Int?
        public let records: Int?
        public let committed: Int?
        public let uncommitted: Int?
        public internal(set) var live: Int?
        public let total: Int
    }
    /// Whether the file's structure checked out, and the error when not.
    public struct Structure: Encodable, Sendable {
        public let ok: Bool
        public let error: ErrorInfo?
    }
    /// A ``VaultFormatError``'s code name and reason.
    public struct ErrorInfo: Encodable, Sendable {
        public let code: String
        public let message: String
    }
    /// What this account recorded of the vault (Spec/cli.md, "Rollback").
    public struct Seen: Encodable, Sendable {
        /// The highest generation seen here.
        public let generation: UInt64
        /// This file against the record: `same`, `newer`, `older` or `different` (same generation,
        /// other header) without a credential; with one, `fork` (older or different under the master
        /// key seen, Spec/rollback.md L-RB-1) or `rolledBack` instead of `older` and `different`.
        public let file: String
    }

    /// The path inspected.
    public internal(set) var file: String
    public internal(set) var format: Version?
    /// The vault ID in lower-case hex.
    public internal(set) var vaultID: String?
    /// The creation time, RFC 3339.
    public internal(set) var created: String?
    public internal(set) var generation: UInt64?
    public internal(set) var keyslots: [Slot] = []
    /// Format 1.2: how many recipient stanzas the header holds (their keys and names are encrypted).
    public internal(set) var recipients: Int?
    /// Format 2.0: how many recipients are limited to one access group (their domain is in the clear).
    public internal(set) var limitedRecipients: Int?
    /// Format 2.0: how many access groups have their own key domain (their names are encrypted).
    public internal(set) var accessGroups: Int?
    /// How many item records the index lists.
    public internal(set) var items: Int?
    public internal(set) var deletions: Int?
    public internal(set) var sizes: Sizes?
    /// Whether this vaulttool may write the format and this user may replace the file.
    public internal(set) var writable: Bool?
    public internal(set) var structure: Structure
    public internal(set) var seen: Seen?
    /// Whether a credential checked the header MAC, so the values above are authenticated.
    public internal(set) var authenticated = false
    /// Sentences for a person: weak keyslots, a read-only file, an older copy, a rollback.
    public internal(set) var warnings: [String] = []
    /// The record read before the vault was opened (opening may raise it).
    var recorded: SeenGeneration?
    /// The header as read, to compare with the one the credential authenticates.
    var headerBytes: [UInt8] = []

    enum CodingKeys: String, CodingKey {
        case file, format, vaultID, created, generation, keyslots, items, deletions, sizes, writable, structure
        case authenticated, warnings, seen
        case recipients, limitedRecipients, accessGroups
    }
}
