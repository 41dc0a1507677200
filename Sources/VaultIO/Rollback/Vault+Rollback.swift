// vault: how a Vault applies the rollback guard when it opens, reads and writes.

import VaultFormat

extension Vault {
    /// The rollback that the latest open or read let through under ``RollbackPolicy/allowReads``;
    /// `nil` when the file read last was not older than the generation seen before.
    ///
    /// Spec: Spec/rollback.md (L-RB-4).
    public var rollbackFinding: RollbackFinding? { lastRollback.withLock { $0 } }

    /// Why the latest open or read could not check for a rollback, or `nil` when it could: the
    /// rollback record (``VaultConfiguration/rollbackState``) cannot be read or created, as for a
    /// service account whose home does not exist or is read-only. Reads go on without the check;
    /// writes fail with this error until the record can be kept or the check is turned off.
    ///
    /// Spec: Spec/rollback.md (L-RB-10).
    public var rollbackStateError: VaultIOError? { lastRollbackStateError.withLock { $0 } }

    /// The result of checking one authenticated snapshot.
    struct Screened {
        /// The snapshot to use: a newer one when the file changed while the first was checked.
        var snapshot: VaultSnapshot
        /// What was found, when the file is rolled back and the policy let it through.
        var finding: RollbackFinding?
        /// Whether a rolled-back file (or an unusable state file) was accepted: a write then
        /// replaces the record instead of raising it.
        var accepted: Bool
        /// Why a read went on without the check: the record could not be read or created (L-RB-10).
        var stateError: VaultIOError? = nil
    }

    /// Checks an authenticated snapshot against the generation seen before and applies `policy`.
    ///
    /// Reads retry with the newest file when a writer committed meanwhile
    /// (``RollbackGuard/observeNewest(_:at:)``); writes hold the write lock, so they check the file
    /// they are about to replace and nothing else.
    ///
    /// - Throws: ``VaultIOError/Code/rolledBack`` unless the policy lets it through;
    ///   ``VaultIOError/Code/rollbackStateInvalid``; a ``VaultIOError`` from the state file.
    static func screen(
        _ snapshot: VaultSnapshot,
        path: String,
        rollbackGuard: RollbackGuard,
        policy: RollbackPolicy,
        forWriting: Bool
    ) throws -> Screened {
        guard rollbackGuard.directory != nil else { return Screened(snapshot: snapshot, finding: nil, accepted: false) }
        func check() throws -> (VaultSnapshot, RollbackFinding?) {
            forWriting
                ? (snapshot, try rollbackGuard.observe(snapshot)) : try rollbackGuard.observeNewest(snapshot, at: path)
        }
        if policy == .accept {
            // Accepting changes the record only through a write that commits (L-RB-4): the
            // committed generation replaces it in `recordCommit`. A read, or a write that changes
            // nothing, leaves the record as it was, so the rollback is still reported next time.
            let checked: (VaultSnapshot, RollbackFinding?)
            do {
                checked = try check()
            } catch let error as VaultIOError where error.code == .rollbackStateInvalid {
                // The write that commits replaces the unusable file; a read goes on without it.
                return Screened(snapshot: snapshot, finding: nil, accepted: forWriting)
            }
            guard checked.1 != nil else { return Screened(snapshot: checked.0, finding: nil, accepted: false) }
            return Screened(snapshot: checked.0, finding: checked.1, accepted: forWriting)
        }
        let checked: VaultSnapshot
        let finding: RollbackFinding?
        do {
            (checked, finding) = try check()
        } catch let error as VaultIOError where !forWriting && error.code == .system {
            // A record that cannot be read or created (no home, a read-only one) must not stop a
            // read; it is reported, and writes, which the record protects, still fail on it.
            return Screened(snapshot: snapshot, finding: nil, accepted: false, stateError: error)
        }
        guard let finding else { return Screened(snapshot: checked, finding: nil, accepted: false) }
        if policy == .allowReads && !forWriting {
            return Screened(snapshot: checked, finding: finding, accepted: false)
        }
        throw VaultIOError(
            .rolledBack,
            operation: forWriting ? "write" : "open",
            path: path,
            reason: "\(finding): an older copy of the vault was put back (a sync tool or a restore)",
            rollback: finding
        )
    }

    /// A vault for an authenticated snapshot that an open just made, compared with the rollback
    /// record first (L-RB-3, L-RB-4): every way of opening (credentials, held keys, a credential
    /// session) goes through here.
    convenience init(location: VaultPath, screening opened: VaultSnapshot, configuration: VaultConfiguration) throws {
        let screened = try Self.screen(
            opened,
            path: location.path,
            rollbackGuard: RollbackGuard(configuration.rollbackState, recording: !configuration.readOnly),
            policy: configuration.rollbackPolicy,
            forWriting: false
        )
        self.init(
            location: location,
            vaultID: screened.snapshot.header.vaultID,
            keys: screened.snapshot.keys,
            openedKeyslot: screened.snapshot.openedKeyslot,
            configuration: configuration,
            rollback: screened.finding,
            rollbackStateError: screened.stateError
        )
    }

    /// Checks a snapshot a read or an open just made, and keeps what it found for ``rollbackFinding``.
    func screenForReading(_ snapshot: VaultSnapshot) throws -> VaultSnapshot {
        let screened = try Self.screen(
            snapshot,
            path: location.path,
            rollbackGuard: rollbackGuard,
            policy: configuration.rollbackPolicy,
            forWriting: false
        )
        lastRollback.withLock { $0 = screened.finding }
        lastRollbackStateError.withLock { $0 = screened.stateError }
        return screened.snapshot
    }

    /// Records the generation a write just committed with `keys`, over the generation `previous`
    /// (`nil` for a new file): what `previous` had and the commit lacks was removed here (L-RB-8).
    /// Best effort: the commit has happened, and a record left behind only makes the next open
    /// raise it (or, after an accepted rollback, report the rollback again), never hides one.
    func recordCommit(_ written: EncodedGeneration, keys: VaultKeys, replacing previous: VaultSnapshot?, accepted: Bool)
    {
        guard rollbackGuard.directory != nil, let (head, fileLength) = try? written.head(),
            let header = try? VaultHeader.decode(head, fileLength: fileLength)
        else { return }
        let seen = SeenGeneration(header: header, headerBytes: head, keys: keys)
        _ = try? rollbackGuard.update(seen, previous: previous.map(SeenGeneration.init), replacing: accepted)
        if accepted { lastRollback.withLock { $0 = nil } }
    }
}
