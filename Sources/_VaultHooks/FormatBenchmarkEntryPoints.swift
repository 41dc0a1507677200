// vault hooks: what Benchmarks/ needs to measure format 3 beside format 2.0 (issue 21).

import VaultFormat
import VaultIO

/// One format-3 commit as its slot describes it, for the growth and compaction measurements.
public struct CommitFigures: Sendable {
    /// The slot's generation.
    public let generation: UInt64
    /// Where the commit's appended bytes start; equal to `committedLength` after a full rewrite.
    public let commitStart: UInt64
    /// Where the commit's bytes end.
    public let committedLength: UInt64
    /// The bytes the commit reaches (the root's `liveBytes`).
    public let liveBytes: UInt64

    /// Committed bytes no chunk of this commit reaches (Spec/format-v3.md §9.3).
    public var waste: UInt64 { committedLength - 1_024 - liveBytes }
    /// Whether the commit was a full rewrite (§9.2): nothing appended to hash.
    public var isFullRewrite: Bool { commitStart == committedLength }
}

extension BenchmarkEntryPoints {
    /// Raises `vault` (a format 1.1 vault) to format 2.0 in one write, as `vaulttool migrate --to
    /// 2.0` does without its backup.
    public static func upgradeToVersion2(_ vault: Vault) throws {
        try vault.write { txn in _ = try txn.upgradeToVersion2() }
    }

    /// The secret of the item with `primaryKey`, found as `vaulttool get` and ``Keychain`` find it:
    /// by lookup tag (format 3: one node per level, not the whole index), then its record.
    public static func secret(of primaryKey: PrimaryKey, in snapshot: VaultSnapshot) throws -> SecretBytes? {
        guard let location = try snapshot.location(of: primaryKey) else { return nil }
        return try snapshot.item(at: location, includeSecret: true).secret
    }

    /// The current commit of a format-3 snapshot; `nil` for earlier formats.
    public static func commitFigures(_ snapshot: VaultSnapshot) -> CommitFigures? {
        guard let store = snapshot.format3 else { return nil }
        return CommitFigures(
            generation: store.slot.generation,
            commitStart: store.slot.commitStart,
            committedLength: store.slot.committedLength,
            liveBytes: store.root.liveBytes
        )
    }
}
