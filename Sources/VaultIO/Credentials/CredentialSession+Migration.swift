// vault: migrating a vault to the current format and key-derivation cost, with one unlock.

import Glibc
public import VaultFormat

/// What ``CredentialSession/migrate(_:credentials:)`` should do.
public struct MigrationOptions: Sendable {
    /// The key-derivation cost password keyslots should have.
    public enum KDFTarget: Sendable, Equatable {
        /// Each parameter raised to at least this one's; nothing is lowered.
        case raise(toAtLeast: KDFParameters)
        /// Exactly these parameters, lower or higher.
        case exactly(KDFParameters)
    }

    /// The cost password keyslots should have; ``KDFParameters/default`` at least by default.
    public var kdf: KDFTarget
    /// Plan only: nothing is written.
    public var dryRun: Bool
    /// Keep the backup after a migration that verified.
    public var keepBackup: Bool
    /// Where the backup goes; `<vault>.backup-<seconds>` when `nil`.
    public var backupPath: String?
    /// The format version to reach. `nil`: the version new vaults get (1.1), or the file's own
    /// when it is newer. Formats 1.2 (recipients) and 2.0 (access-group recipients) are reached
    /// only by asking for them (R12-MIG-1, R2-MIG-1); a lower version than the file's is refused.
    public var formatVersion: FormatVersion?

    public init(
        kdf: KDFTarget = .raise(toAtLeast: .default),
        dryRun: Bool = false,
        keepBackup: Bool = false,
        backupPath: String? = nil,
        formatVersion: FormatVersion? = nil
    ) {
        self.kdf = kdf
        self.dryRun = dryRun
        self.keepBackup = keepBackup
        self.backupPath = backupPath
        self.formatVersion = formatVersion
    }
}

/// What a migration changes (or, in a dry run, would change).
public struct MigrationPlan: Sendable {
    /// A password keyslot whose key derivation is raised, or rewrapped with its NFC password.
    public struct KeyslotChange: Sendable, Equatable {
        public var index: Int
        public var kind: Keyslot.Kind
        public var from: KDFParameters
        public var to: KDFParameters
        /// A format 1.0 keyslot of a password not in NFC form, rewrapped with the NFC form (R11-PW-1).
        public var normalizesPassword: Bool
    }

    /// A keyslot below the target that the credentials given do not open: left as it is.
    public struct SkippedKeyslot: Sendable, Equatable {
        public var index: Int
        public var kind: Keyslot.Kind
    }

    /// The format version read, as `(major, minor)`.
    public var fromVersion: (major: UInt16, minor: UInt16)
    /// The format version written.
    public var toVersion: (major: UInt16, minor: UInt16) = (VaultHeader.currentMajor, VaultHeader.newVaultMinor)
    public var keyslotChanges: [KeyslotChange] = []
    public var skippedKeyslots: [SkippedKeyslot] = []

    /// Whether the format and every keyslot are current.
    public var isEmpty: Bool { fromVersion == toVersion && keyslotChanges.isEmpty }
}

/// The outcome of ``CredentialSession/migrate(_:credentials:)``.
public struct MigrationReport: Sendable {
    public var plan: MigrationPlan
    /// Whether the file was rewritten.
    public var migrated = false
    /// The backup, when it was kept.
    public var backup: String?
    /// Format 1.1: this device's device-bound items moved to device-tagged IDs.
    public var retaggedItems = 0
    /// Device-bound items that may be this device's but could not be re-tagged (class key not held).
    public var pendingDeviceItems = 0
}

extension VaultHeader {
    /// The format `migrate` moves a vault of this header to when no version is named
    /// (``MigrationOptions/formatVersion`` `nil`): from format 2.0 on, minor 0 of its own major
    /// (a later major is only ever reached by naming it); before, format 1's newest minor.
    ///
    /// ```swift
    /// let header = try VaultFileReader(path: path).header()
    /// print("migrate moves it to \(header.defaultMigrationTarget)")
    /// ```
    public var defaultMigrationTarget: (major: UInt16, minor: UInt16) {
        major >= Self.version2Major ? (major, 0) : (Self.currentMajor, max(minor, Self.newVaultMinor))
    }
}

extension CredentialSession {
    /// Brings the vault to the current format and raises its password keyslots' key derivation.
    ///
    /// The whole migration runs under the write lock, so no other writer commits in between
    /// and nothing is put back over another process's commit:
    ///
    /// 1. Plan from the newest generation: the keyslots below the target that `credentials`
    ///    open. The keyslot that opened this session is known without a key derivation; each
    ///    other candidate costs one. The raised keyslots together must stay within R-KS-8.
    /// 2. Verify every item, and write a verified, durable backup (``Vault/backup(of:to:credentials:now:)``).
    /// 3. Upgrade to format 1.1 (R11-MIG-1) and rewrap each planned keyslot at its new cost
    ///    (one key derivation each: the new key-encryption key), in one commit.
    /// 4. Read the new file back with the keys held (no key derivation): the keyslots must be
    ///    the ones written and every item must verify as before. Only then is the generation
    ///    recorded for the rollback check and the backup removed (unless kept).
    /// 5. When step 4 fails, the backup is put back, still under the lock, and the rollback
    ///    record is set back to the original generation (a reader may have raised it in
    ///    between), so the next open reports no rollback.
    ///
    /// A vault with nothing to change still has this device's untagged items re-tagged (an
    /// earlier migration without the password), without a backup.
    ///
    /// - Parameters:
    ///   - options: The target cost, a dry run, the backup's fate.
    ///   - credentials: The credentials this session was opened with (and any others whose
    ///     keyslots should be raised): new keyslots are made from them.
    /// - Returns: The plan and what was done.
    /// - Throws: `unsupportedVersion` for a vault newer than this library; `kdfRejected` (R-KS-8);
    ///   `recordCorrupt` when the migrated file did not verify (the original was put back);
    ///   as ``Vault/write(_:)-8yjd9`` otherwise.
    ///
    /// Spec: Spec/format-v1.1.md (R11-MIG-1, R11-PW-1), Spec/cli.md "migrate".
    public func migrate(_ options: MigrationOptions, credentials: Credentials) throws -> MigrationReport {
        let credentials = try Vault.addingDeviceSecret(to: credentials, vault.configuration)
        if options.dryRun {
            let snapshot = try vault.read { $0 }
            return MigrationReport(plan: try plan(snapshot.header, options, credentials))
        }
        return try vault.withWriteLock {
            try migrateHoldingLock(options, credentials: credentials)
        }
    }

    private func migrateHoldingLock(_ options: MigrationOptions, credentials: Credentials) throws -> MigrationReport {
        let (reader, snapshot, accepted) = try vault.openNewestForWriting()
        var report = MigrationReport(plan: try plan(snapshot.header, options, credentials))
        var transaction = VaultTransaction(
            writer: try VaultWriter(updating: snapshot),
            now: Vault.currentTime(),
            kdf: vault.configuration.kdf,
            kdfFloor: vault.configuration.kdfFloor
        )
        if report.plan.isEmpty {
            // A 1.1 vault may still hold this device's items without their tag.
            let retag = try transaction.upgradeToVersion11()
            report.retaggedItems = retag.retagged
            report.pendingDeviceItems = retag.pending
            if transaction.hasChanges {
                try commit(transaction, replacing: reader, snapshot: snapshot, accepted: accepted)
            }
            report.migrated = transaction.hasChanges
            return report
        }
        // (2) Every item must read before anything changes; the backup is this generation.
        let before = try snapshot.verify()
        let backup = try Vault.backup(of: vault.path, to: options.backupPath).path
        // (3) The format first, so that rewrapped keyslots take the NFC password (R11-PW-1).
        let retag = try transaction.upgradeToVersion11()
        report.retaggedItems = retag.retagged
        report.pendingDeviceItems = retag.pending
        // Formats 1.2 and 2.0 only when asked for: older tools then read the vault read-only (1.2)
        // or not at all (2.0).
        let wanted = report.plan.toVersion
        if transaction.formatVersion.major == 1 && wanted >= (1, 2) { try transaction.upgradeToVersion12() }
        if wanted.major == 2 { try transaction.upgradeToVersion2() }
        if wanted.major == 3 { try transaction.upgradeToVersion3() }
        for change in report.plan.keyslotChanges {
            // The same credential at a higher cost (or in NFC): nothing is revoked, so the master key stays.
            try transaction.replaceKeyslot(
                at: change.index,
                kind: change.kind,
                credentials: credentials,
                kdf: change.to,
                rekey: nil
            )
        }
        let written = try transaction.writer.encodeGeneration(now: transaction.now)
        try vault.commit(written, replacing: reader.status, previous: snapshot)
        // (4) Read back with the keys held: the master key did not change (R-KS-5).
        do {
            try MigrationTesting.afterCommit?(vault.path)
            let (keys, slot) = vault.useKeys()
            let after = try VaultFileReader(path: vault.path).open(keys: keys, openedKeyslot: slot)
            guard after.header.keyslots == transaction.keyslots else {
                throw VaultFormatError(.headerCorrupt, "the keyslots read back differ from the ones written")
            }
            guard try after.verify() == before else {
                throw VaultFormatError(.recordCorrupt, "the migrated vault has a different number of items")
            }
        } catch {
            // (5) Under the lock: no other writer can have committed since, so this puts back
            // exactly the generation replaced. This migration did not raise the rollback record,
            // but a reader may have seen the migrated file meanwhile: the record is set back to
            // the generation restored, so that the next open reports no rollback (L-RB-4).
            try DurableFile.replace(vault.path, with: backup)
            _ = try? vault.rollbackGuard.update(SeenGeneration(snapshot), replacing: true)
            throw VaultFormatError(
                .recordCorrupt,
                "the migrated vault did not verify (\(error)); the original was put back"
            )
        }
        // The keyslots were rewrapped for the same credentials at a higher cost: nothing was
        // revoked (the master key stays), so no keyslot counts as removed (L-RB-8). Counting them
        // made every branch from before the migration a rollback on this account.
        vault.recordCommit(written, keys: transaction.writer.keys, replacing: nil, accepted: accepted)
        report.migrated = true
        if options.keepBackup {
            report.backup = backup
        } else {
            try DurableFile.remove(backup)
        }
        return report
    }

    private func commit(
        _ transaction: VaultTransaction,
        replacing reader: VaultFileReader,
        snapshot: VaultSnapshot,
        accepted: Bool
    ) throws {
        let written = try transaction.writer.encodeGeneration(now: transaction.now)
        try vault.commit(written, replacing: reader.status, previous: snapshot)
        vault.recordCommit(written, keys: transaction.writer.keys, replacing: snapshot, accepted: accepted)
    }

    /// (1) The keyslots to raise or rewrap, found from `header`.
    private func plan(
        _ header: VaultHeader,
        _ options: MigrationOptions,
        _ credentials: Credentials
    ) throws -> MigrationPlan {
        // R-HDR-3: a newer minor is read-only here; rewriting it would drop what it added.
        guard header.isWritable else {
            throw VaultFormatError(
                .unsupportedVersion,
                "vault format \(header.major).\(header.minor) is newer than this library; migrate never downgrades"
            )
        }
        var plan = MigrationPlan(fromVersion: (header.major, header.minor))
        if let wanted = options.formatVersion {
            let known: [(UInt16, UInt16)] = [(1, 1), (1, 2), (2, 0), (3, 0)]
            guard known.contains(where: { $0 == (wanted.major, wanted.minor) }) else {
                throw VaultFormatError(
                    .unsupportedVersion,
                    "this library migrates to format 1.1, 1.2, 2.0 or 3.0, not \(wanted)"
                )
            }
            guard (wanted.major, wanted.minor) >= (header.major, header.minor) else {
                throw VaultFormatError(
                    .unsupportedVersion,
                    "the vault is format \(header.major).\(header.minor); migrate never downgrades"
                )
            }
            plan.toVersion = (wanted.major, wanted.minor)
        } else {
            plan.toVersion = header.defaultMigrationTarget
        }
        var probes = [Int: Bool]()
        var planned = header.keyslots
        for (index, slot) in header.keyslots.enumerated() {
            guard let kdf = slot.kdf else { continue }
            let wanted: KDFParameters
            switch options.kdf {
            case .exactly(let target): wanted = target
            case .raise(let target): wanted = Self.raise(kdf, toAtLeast: target)
            }
            guard wanted != kdf else { continue }
            guard try opens(index, of: header, with: credentials, known: &probes) else {
                plan.skippedKeyslots.append(.init(index: index, kind: slot.kind))
                continue
            }
            plan.keyslotChanges.append(
                .init(index: index, kind: slot.kind, from: kdf, to: wanted, normalizesPassword: false)
            )
            planned[index].kdf = wanted
        }
        // R-KS-8: the raised slots together must stay within the work of one open; refused
        // here, in the plan (and in a dry run), before any backup or write.
        try KDFParameters.validateTotal(of: planned)
        // R11-PW-1: a password that is not in NFC form opened its 1.0 keyslots as typed; in 1.1
        // the reader normalizes it, so those keyslots are rewrapped with the NFC form.
        if !header.followsVersion11Rules, let password = credentials.password,
            !PasswordNormalization.isNormalized(password)
        {
            for (index, slot) in header.keyslots.enumerated()
            where slot.kind.usesPassword && !plan.keyslotChanges.contains(where: { $0.index == index }) {
                guard let kdf = slot.kdf, try opens(index, of: header, with: credentials, known: &probes) else {
                    continue
                }
                plan.keyslotChanges.append(
                    .init(index: index, kind: slot.kind, from: kdf, to: kdf, normalizesPassword: true)
                )
            }
            plan.keyslotChanges.sort { $0.index < $1.index }
        }
        return plan
    }

    /// Whether `credentials` open keyslot `index`: known for the keyslot that opened this
    /// session; otherwise found by its key derivation, run once and remembered in `known`.
    private func opens(
        _ index: Int,
        of header: VaultHeader,
        with credentials: Credentials,
        known: inout [Int: Bool]
    ) throws -> Bool {
        if let result = known[index] { return result }
        var result = header.keyslots[index] == opened
        if !result { result = try Self.probe(index, of: header, with: credentials) }
        known[index] = result
        return result
    }

    /// Whether `credentials` open keyslot `index` alone (its key derivation).
    private static func probe(_ index: Int, of header: VaultHeader, with credentials: Credentials) throws -> Bool {
        var alone = header
        alone.keyslots = [header.keyslots[index]]
        // The slot alone: an identity would otherwise open a recipient stanza and pass for it.
        alone.recipientStanzas = []
        do {
            _ = try KeyHierarchy.unlock(alone, with: credentials)
            return true
        } catch {
            if error.code == .wrongCredential { return false }
            throw error
        }
    }

    /// Each parameter raised to at least the target's, within the R-KS-2 work cap; nothing is lowered.
    public static func raise(_ kdf: KDFParameters, toAtLeast target: KDFParameters) -> KDFParameters {
        guard kdf.memoryKiB < target.memoryKiB || kdf.iterations < target.iterations || kdf.isWeak else { return kdf }
        var raised = KDFParameters(
            memoryKiB: max(kdf.memoryKiB, target.memoryKiB),
            iterations: max(kdf.iterations, target.iterations),
            lanes: max(kdf.lanes, target.lanes)
        )
        while UInt64(raised.memoryKiB) * UInt64(raised.iterations) > KDFParameters.maximumWork && raised.iterations > 2
        {
            raised.iterations -= 1
        }
        return raised
    }
}

/// Test hooks of ``CredentialSession/migrate(_:credentials:)``.
package enum MigrationTesting {
    /// Runs after the migrated file is committed and before it is read back, still under the
    /// write lock, with the vault's path: a test damages the file here to check the restore.
    @TaskLocal package static var afterCommit: (@Sendable (String) throws -> Void)?
}
