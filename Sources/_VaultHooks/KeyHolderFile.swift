// vault hooks: a vault file rewritten by a key holder without the master key, for Reliability/.

import VaultFormat

/// A vault file taken apart with the header and index keys of a holder of `BK` alone or of a
/// limited recipient, to be changed and written again so that the header MAC and the index
/// accept it: the key-holder pass of the reliability tamper suite.
///
/// Forwards `KeyHolderRewrite` (package) to the `Reliability/` package, which cannot see package
/// code. It applies no rule of the format.
public struct KeyHolderFile: Sendable {
    /// One item: its index entry and its record bytes (the package `SealedRecord`, made public).
    public struct Record: Sendable {
        fileprivate var sealed: SealedRecord

        /// The index entry (its `domain` is written in a file of major 2).
        public var entry: IndexEntry {
            get { sealed.entry }
            set { sealed.entry = newValue }
        }
        /// The record bytes.
        public var bytes: [UInt8] {
            get { sealed.bytes }
            set { sealed.bytes = newValue }
        }

        /// Pairs an entry with its bytes.
        public init(entry: IndexEntry, bytes: [UInt8]) { sealed = SealedRecord(entry: entry, bytes: bytes) }

        fileprivate init(_ sealed: SealedRecord) { self.sealed = sealed }
    }

    private var file: KeyHolderRewrite

    /// Takes `bytes` apart with `keys`, which must open it (MAC, index).
    public init(_ bytes: [UInt8], keys: VaultKeys) throws {
        file = try KeyHolderRewrite(bytes, keys: keys)
    }

    /// The keys of a holder of `BK` alone of the vault that `keys` (holding `MK` or `BK`) open.
    public static func baseKeyHolder(of keys: VaultKeys, vaultID: [UInt8]) -> VaultKeys? {
        KeyHolderRewrite.baseKeyHolder(of: keys, vaultID: vaultID)
    }

    /// The preamble's major version.
    public var major: UInt16 {
        get { file.major }
        set { file.major = newValue }
    }
    /// The preamble's minor version.
    public var minor: UInt16 {
        get { file.minor }
        set { file.minor = newValue }
    }
    /// Every header field, in file order: type and value.
    public var fields: [(type: UInt16, value: [UInt8])] {
        get { file.fields.map { ($0.type, $0.value) } }
        set { file.fields = newValue.map { KeyHolderRewrite.Field(type: $0.type, value: $0.value) } }
    }
    /// The items, in index order.
    public var records: [Record] {
        get { file.records.map(Record.init) }
        set { file.records = newValue.map(\.sealed) }
    }
    /// The deletion records, in index order.
    public var deletions: [DeletionRecord] {
        get { file.deletions }
        set { file.deletions = newValue }
    }
    /// The generation field.
    public var generation: UInt64 {
        get { file.generation }
        set { file.generation = newValue }
    }
    /// The vault ID field.
    public var vaultID: [UInt8] { file.vaultID }

    /// Seals `draft` with the key holder's keys in key domain `domain`, at the file's generation.
    public func seal(_ draft: ItemDraft, domain: UInt8, random: some RandomSource) throws -> Record {
        Record(try file.seal(draft, domain: domain, random: random))
    }

    /// Puts `record` in index order, replacing a record of the same item ID.
    public mutating func insert(_ record: Record) {
        file.insert(record.sealed)
    }

    /// The file, with the checksum, the MAC and the index recomputed under the key holder's keys.
    public func encode(random: some RandomSource) -> [UInt8] { file.encode(random: random) }

    /// What stanza `value` wraps for `identity`, or `nil`.
    public static func unwrap(stanza value: [UInt8], identity: RecipientIdentity, vaultID: [UInt8]) -> SecretBytes? {
        KeyHolderRewrite.unwrap(stanza: value, identity: identity, vaultID: vaultID)
    }

    /// A limited stanza of `domain` wrapping `payload` to `recipient`, with an info that opens for
    /// nobody (a limited recipient holds no `RIK`).
    public static func limitedStanza(
        wrapping payload: SecretBytes,
        domain: UInt8,
        for recipient: RecipientKey,
        vaultID: [UInt8],
        random: some RandomSource
    ) -> [UInt8] {
        KeyHolderRewrite.stanza(wrapping: payload, to: recipient, domain: domain, vaultID: vaultID, random: random)
    }

    /// The value of an access-group field naming `name` in `domain`, as the holder of `MK` that
    /// `ownerKeys` hold writes it (another copy of the vault that gave `domain` to `name`).
    public static func ownerAccessGroupField(
        name: String,
        domain: UInt8,
        ownerKeys: VaultKeys,
        vaultID: [UInt8],
        random: some RandomSource
    ) throws -> [UInt8] {
        try KeyHolderRewrite.accessGroupField(
            name: name,
            domain: domain,
            ownerKeys: ownerKeys,
            vaultID: vaultID,
            random: random
        )
    }
}
