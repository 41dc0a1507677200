// vault hooks: a format-3 vault file changed by a key holder without the master key, and where a
// format-3 commit's chunks lie, for Reliability/.

import VaultFormat

/// A format-3 vault file taken apart with the keys of a holder of `BK` alone or of a limited
/// recipient, changed, and committed in place as that holder can (the slot's MAC under `HK`, the
/// root and nodes under `IK`, the tags of the scopes it holds the key of; Spec/format-v3.md §7.3):
/// the format-3 key-holder pass of the reliability tamper suite.
///
/// Forwards `Format3KeyHolderRewrite` (package) to the `Reliability/` package. It applies no rule of
/// the format.
public struct Format3KeyHolderFile: Sendable {
    /// A scope of the root: master `(0, 0)`, base `(1, 0)` or group `(2, d)`.
    public struct ScopeName: Hashable, Sendable, CustomStringConvertible {
        public let kind: UInt8
        public let domain: UInt8

        public static let master = ScopeName(kind: 0, domain: 0)
        public static let base = ScopeName(kind: 1, domain: 0)
        public static func group(_ domain: UInt8) -> ScopeName { ScopeName(kind: 2, domain: domain) }

        public var description: String {
            switch kind {
            case 0: "master"
            case 1: "base"
            default: "group \(domain)"
            }
        }

        fileprivate var id: ScopeID { ScopeID(kind: kind, domain: domain)! }
        fileprivate init(_ id: ScopeID) { self.init(kind: id.kind, domain: id.domain) }
        fileprivate init(kind: UInt8, domain: UInt8) {
            self.kind = kind
            self.domain = domain
        }
    }

    /// One entry of a scope's tree, live or deleted.
    public struct Entry: Sendable {
        public let scope: ScopeName
        public let itemID: ItemID
        public let isLive: Bool
        /// The history's event IDs, the current one first.
        public let events: [[UInt8]]
        let raw: TreeEntry
    }

    private var file: Format3KeyHolderRewrite

    /// Takes `bytes` apart with `keys`, which must open its current commit.
    public init(_ bytes: [UInt8], keys: VaultKeys) throws {
        file = try Format3KeyHolderRewrite(bytes, keys: keys)
    }

    /// The root's scopes, in root order.
    public var scopes: [ScopeName] { file.scopes.map { ScopeName($0.state.scope) } }

    /// A scope's counter (§7.2).
    public func counter(of scope: ScopeName) -> UInt64? {
        file.scopes.first { $0.state.scope == scope.id }?.state.counter
    }

    /// The entries of `scope`'s tree, in key order.
    public func entries(in scope: ScopeName) -> [Entry] {
        guard let found = file.scopes.first(where: { $0.state.scope == scope.id }) else { return [] }
        return found.entries.map { Self.entry($0, in: found.state.scope) }
    }

    /// Item `id`'s entry, live or deleted, in whichever scope holds it.
    public func entry(of id: ItemID) -> Entry? {
        file.entry(of: id).map { Self.entry($0.entry, in: $0.scope) }
    }

    private static func entry(_ raw: TreeEntry, in scope: ScopeID) -> Entry {
        Entry(
            scope: ScopeName(scope),
            itemID: raw.key.itemID,
            isLive: raw.isLive,
            events: raw.history.events.map(\.bytes),
            raw: raw
        )
    }

    /// Takes item `id`'s entry out of its tree, leaving no deletion entry.
    public mutating func remove(_ id: ItemID) { file.remove(id) }

    /// Puts `entry` (of this file, or of an older copy of it) in `scope`'s tree, in place of any
    /// entry of its item.
    public mutating func put(_ entry: Entry, in scope: ScopeName) { file.put(entry.raw, in: scope.id) }

    /// Replaces item `id`'s entry by a deletion entry at `deletedAt`, a new event on its history, in
    /// the same scope and under the same key (what a writer's deletion writes, R3-ENT-2).
    public mutating func markDeleted(_ id: ItemID, at deletedAt: Int64, random: some RandomSource) {
        guard let (scope, raw) = file.entry(of: id) else { return }
        let history = raw.history.recording(EventID.random(avoiding: raw.history, from: random))
        file.put(.deleted(key: raw.key, deletedAt: deletedAt, history: history), in: scope)
    }

    /// Puts back `scope`'s root entry (counter, tree, counts, tag) from an older copy of the file.
    public mutating func restore(_ scope: ScopeName, from older: Format3KeyHolderFile) {
        file.restore(scope.id, from: older.file)
    }

    /// Seals `draft` with the holder's keys in key domain `domain` as a new write of its item.
    public mutating func plant(_ draft: ItemDraft, domain: UInt8, random: some RandomSource) throws {
        try file.plant(draft, domain: domain, random: random)
    }

    /// Drops access group `domain`: its field, its limited stanzas and its scope.
    public mutating func dropAccessGroup(_ domain: UInt8) { file.dropAccessGroup(domain) }

    /// The header chunk's fields, in file order: type and value.
    public var fields: [(type: UInt16, value: [UInt8])] {
        get { file.fields.map { ($0.type, $0.value) } }
        set { file.fields = newValue.map { KeyHolderRewrite.Field(type: $0.type, value: $0.value) } }
    }

    /// The file with the changes committed in place; `now` raises the changed scopes' counters.
    public func encode(now: UInt64, random: some RandomSource) throws -> [UInt8] {
        try file.encode(now: now, random: random)
    }
}

/// Where the chunks of each complete commit of a format-3 file lie (the current commit first), as
/// `keys` read them: for the tamper matrix's regions.
///
/// Forwards `Format3CommitLayout` (package) to the `Reliability/` package.
public struct Format3Layout: Sendable {
    /// One chunk: `"header"`, `"root"`, `"node"` or `"record"`, its scope, its bytes.
    public struct Chunk: Sendable {
        fileprivate let chunk: Format3CommitLayout.Chunk

        public var kind: String { chunk.kind.rawValue }
        public var scope: String? { chunk.scope.map { Format3KeyHolderFile.ScopeName($0).description } }
        public var range: Range<Int> { chunk.range }
    }

    private let layout: Format3CommitLayout

    /// The slot's position (0 or 1).
    public var slotIndex: Int { layout.slotIndex }
    public var generation: UInt64 { layout.generation }
    /// The bytes the commit appended (its commit hash covers them); empty for a full rewrite.
    public var appended: Range<Int> { layout.appended }
    public var chunks: [Chunk] { layout.chunks.map(Chunk.init) }

    /// The layouts of `file`'s complete commits that `keys` open, the current one first.
    public static func commits(of file: [UInt8], keys: VaultKeys) throws -> [Format3Layout] {
        try Format3CommitLayout.commits(of: file, keys: keys).map(Format3Layout.init)
    }
}
