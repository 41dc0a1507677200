// vault: merging another copy of the vault into this one, through the atomic writer.

public import VaultFormat

extension Vault {
    /// Merges another copy of this vault into it, as one new generation written atomically.
    ///
    /// Runs under the write lock, like ``write(_:)-8yjd9``: the newest generation on disk is read
    /// (and screened for rollback, L-RB-5) and is *ours*; `theirs` is merged into it, three-way
    /// when `base` (the common ancestor) is given. The merged generation is one more than the
    /// newer of the two files. When the master keys differ (a rekey on one side), the merge keeps
    /// ours' when the ancestor shows ours alone changed it, else the one `options.masterKey`
    /// names, else fails (R-MRG-11); when theirs' is kept, this `Vault` adopts it.
    ///
    /// ```swift
    /// let theirs = try VaultFileReader(path: conflictPath).open(with: .password(passphrase))
    /// let report = try vault.merge(theirs)
    /// for conflict in report.conflicts { print(conflict.itemID, conflict.kind) }
    /// ```
    ///
    /// - Parameters:
    ///   - theirs: The other copy, opened with a password or key file.
    ///   - base: The common ancestor for a three-way merge, or `nil`.
    ///   - options: What to do with records that cannot be carried (R-MRG-13).
    /// - Returns: What the merge decided. Nothing is written when ours already holds the result.
    /// - Throws: ``VaultMergeError`` (`differentVaults`, `masterKeyRequired`, `masterKeysDiffer`,
    ///   `unreadableRecords`);
    ///   ``VaultIOError/Code/lockTimeout``, ``VaultIOError/Code/rolledBack``, a ``VaultIOError``
    ///   from the commit (the old file stays); ``VaultFormatError`` `recordCorrupt`.
    ///
    /// Spec: Spec/merge.md.
    @discardableResult
    public func merge(
        _ theirs: VaultSnapshot,
        base: VaultSnapshot? = nil,
        options: MergeOptions = MergeOptions()
    ) throws -> MergeReport {
        guard theirs.header.vaultID == vaultID else {
            throw VaultMergeError(.differentVaults, "the files hold different vaults (their vault IDs differ)")
        }
        try rollbackGuard.refuseRemovedCredentials(in: theirs, side: "theirs")
        return try withWriteLock {
            let (reader, ours, accepted) = try openNewestForWriting()
            let result = try translatingLocked {
                try VaultMerge.merge(ours: ours, theirs: theirs, base: base, options: options)
            }
            let report = result.report
            guard report.changesOurs else { return report }
            // The writer builds on the file whose key the merge kept: in place only when that file is
            // ours, the one being replaced (format 3, R-MRG-14); else the whole file.
            let written =
                report.keysFrom == .ours
                ? try result.writer.encodeGeneration(now: Self.currentTime())
                : .whole(try result.writer.encode(now: Self.currentTime()))
            try commit(written, replacing: reader.status, previous: ours)
            // The side whose key the merge did not keep is what the commit replaced: its key is
            // retired (L-RB-8), even when ours was accepted.
            let replaced = report.keysFrom == .ours && theirs.keys.master?.secret != ours.keys.master?.secret
            recordCommit(written, keys: result.writer.keys, replacing: replaced ? theirs : ours, accepted: accepted)
            if report.keysFrom == .theirs {
                // The merged file keeps theirs' master key (R-MRG-11): hold it from now on.
                let keys = result.writer.keys
                keyState.withLock { state in
                    state.keys = state.isLocked ? keys.locked(dropping: Self.lockedClasses) : keys
                    state.openedKeyslot = theirs.openedKeyslot
                }
            } else if report.keyslotsFrom == .theirs {
                let slots = result.writer.header.keyslots
                keyState.withLock { state in
                    let old = ours.header.keyslots
                    let previous = old.indices.contains(state.openedKeyslot) ? old[state.openedKeyslot] : nil
                    state.openedKeyslot =
                        previous.flatMap { p in slots.firstIndex { $0.kind == p.kind && $0.salt == p.salt } }
                        ?? slots.firstIndex { $0.scope == .masterKey } ?? 0
                }
            }
            return report
        }
    }

    /// Merges two copies of a vault into a new file at `path`, leaving both inputs as they are.
    ///
    /// The file is created (mode `0600`) through the atomic writer under the target's write lock;
    /// it must not exist.
    ///
    /// - Parameters:
    ///   - ours: The copy whose keyslots win when both changed them.
    ///   - theirs: The other copy.
    ///   - base: The common ancestor, or `nil`.
    ///   - path: Where to create the merged file.
    ///   - configuration: The lock timeout and rollback state (the merged generation is recorded).
    ///   - options: What to do with records that cannot be carried.
    /// - Returns: What the merge decided.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when a file is at `path`; ``VaultMergeError``;
    ///   a ``VaultIOError`` from the commit.
    @discardableResult
    public static func merge(
        ours: VaultSnapshot,
        theirs: VaultSnapshot,
        base: VaultSnapshot? = nil,
        creating path: String,
        configuration: VaultConfiguration = VaultConfiguration(),
        options: MergeOptions = MergeOptions()
    ) throws -> MergeReport {
        guard !configuration.readOnly else { throw readOnlyError(path) }
        let location = try VaultPath.resolvingNew(path)
        let guardRecord = RollbackGuard(configuration.rollbackState, recording: !configuration.readOnly)
        try guardRecord.refuseRemovedCredentials(in: theirs, side: "theirs")
        try guardRecord.refuseRemovedCredentials(in: ours, side: "ours")
        let result = try VaultMerge.merge(ours: ours, theirs: theirs, base: base, options: options)
        let bytes = try result.writer.encode(now: currentTime())
        try WriteLock(target: location).withLock(timeout: configuration.lockTimeout) {
            try AtomicWriter(target: location).commit(bytes, .create)
        }
        if guardRecord.directory != nil {
            let header = result.writer.header
            let seen = SeenGeneration(
                header: header,
                headerBytes: (try? VaultHead.read(bytes).bytes) ?? [],
                keys: result.writer.keys
            )
            _ = try? guardRecord.update(seen, replacing: false)
        }
        return result.report
    }
}

extension RollbackGuard {
    /// R-MRG-17 with the rollback record (Spec/rollback.md L-RB-8): refuses a copy to be merged in
    /// that carries a keyslot or recipient stanza a write of this account removed: it is an older
    /// copy (a sibling from before the removal would otherwise bring it back through R-MRG-12 or
    /// R-MRG-15).
    ///
    /// - Parameters:
    ///   - snapshot: The copy to be merged in.
    ///   - side: How messages name the copy (`theirs`).
    /// - Throws: ``VaultMergeError`` `notDescendant`.
    public func refuseRemovedCredentials(in snapshot: VaultSnapshot, side: String) throws {
        guard finding(for: snapshot)?.kind == .removedCredential else { return }
        throw VaultMergeError(
            .notDescendant,
            "\(side) holds a keyslot or recipient that a write on this account removed; it is an older copy "
                + "of the vault, and a merge never brings a removed credential back (nothing was merged)"
        )
    }
}
