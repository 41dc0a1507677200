// vault: the per-user record of the newest generation seen of each vault, to notice a file put back.

import Glibc
public import VaultFormat

/// Where the rollback guard keeps the generations it has seen.
///
/// Spec: Spec/rollback.md (L-RB-1 to L-RB-7).
public enum RollbackStateLocation: Sendable, Hashable {
    /// `$XDG_STATE_HOME/vault/seen`, or `~/.local/state/vault/seen` when `XDG_STATE_HOME`
    /// is unset or not absolute. Without either (no home directory at all) the check is off.
    case standard
    /// A directory of the caller's choosing (tests use a temporary one).
    case directory(String)
    /// No state is kept and no rollback is noticed.
    case disabled
}

/// What a ``Vault`` does when the file is older than one it has seen (``VaultIOError/Code/rolledBack``).
public enum RollbackPolicy: Sendable, Hashable {
    /// Opening, reading and writing throw ``VaultIOError/Code/rolledBack``. The default.
    case refuse
    /// Opening and reading go on (``Vault/rollbackFinding`` says what was found); writes throw.
    case allowReads
    /// The file is taken as it is: its generation and header replace what was recorded, and
    /// writes go on from it. Use only when the older copy was put back on purpose.
    case accept
}

/// A vault file that puts back what this account saw replaced: a master key rekeyed away, a
/// keyslot or recipient stanza a write removed, or (without the keys to tell) an older generation.
///
/// A file that is merely older than the newest generation seen, under the same master key and
/// with no removed credential, is a fork (a git branch switch, a discarded commit), not a rollback.
public struct RollbackFinding: Sendable, Hashable, CustomStringConvertible {
    /// What the file brings back.
    public enum Kind: Sendable, Hashable {
        /// The file's generation is lower than the highest one seen, and its master key could not
        /// be compared (a version-1 record, or a header read without a credential).
        case olderGeneration
        /// The file has the generation seen, but another header, and its master key could not be
        /// compared.
        case differentHeader
        /// The file is sealed under a master key this account saw replaced by a rekey.
        case retiredMasterKey
        /// The file carries a keyslot or recipient stanza that a write on this account removed.
        case removedCredential
        /// The file is under a master key this account never saw, and is not newer than the
        /// generation seen: an older copy from before a rekey this account did not watch.
        case unknownMasterKey
    }

    /// The vault's ID.
    public let vaultID: [UInt8]
    /// The highest generation seen of this vault.
    public let seenGeneration: UInt64
    /// The generation of the file opened now.
    public let foundGeneration: UInt64
    /// What the file brings back.
    public let kind: Kind

    /// Creates a finding; without `kind`, the generations decide between
    /// ``Kind/olderGeneration`` and ``Kind/differentHeader``.
    public init(vaultID: [UInt8], seenGeneration: UInt64, foundGeneration: UInt64, kind: Kind? = nil) {
        self.vaultID = vaultID
        self.seenGeneration = seenGeneration
        self.foundGeneration = foundGeneration
        self.kind = kind ?? (foundGeneration < seenGeneration ? .olderGeneration : .differentHeader)
    }

    /// For example: `generation 3 is older than generation 5 seen before`.
    public var description: String {
        switch kind {
        case .olderGeneration:
            "generation \(foundGeneration) is older than generation \(seenGeneration) seen before"
        case .differentHeader:
            "generation \(foundGeneration) differs from the generation \(seenGeneration) seen before"
        case .retiredMasterKey:
            "generation \(foundGeneration) is sealed under a master key that a rekey replaced here "
                + "(generation \(seenGeneration) was seen)"
        case .removedCredential:
            "generation \(foundGeneration) holds a keyslot or recipient that a write removed here"
        case .unknownMasterKey:
            "generation \(foundGeneration) is under a master key never seen here and is not newer than "
                + "generation \(seenGeneration) seen before"
        }
    }
}

/// What this account knows of one vault (the record), or what one generation of it shows (an
/// observation). No secret: a header hash, keyed fingerprints that reveal nothing of a key, and
/// hashes of public header fields.
public struct SeenGeneration: Sendable, Hashable {
    /// The vault's ID (16 bytes).
    public let vaultID: [UInt8]
    /// The highest generation seen.
    public let generation: UInt64
    /// `BLAKE2b-256(headerBytes)` of that generation's header, MAC included.
    public let headerHash: [UInt8]
    /// The epoch `E` of the newest master key seen (Spec/rollback.md L-RB-8); `nil` in a
    /// version-1 record and in an observation of a header made without keys.
    public let epoch: [UInt8]?
    /// The epochs of master keys this account saw a rekey replace, newest first.
    public let retiredEpochs: [[UInt8]]
    /// Epochs other than ``epoch`` that are current too: the key seen before a rolled-back copy
    /// under another key was accepted (accepting a copy does not retire the newer key), newest first.
    public let knownEpochs: [[UInt8]]
    /// Fingerprints of keyslots and recipient stanzas this account saw a write remove, newest first.
    public let removedCredentials: [[UInt8]]
    /// An observation's keyslot and stanza fingerprints; empty in a record (not stored).
    let credentials: Set<[UInt8]>

    /// At most this many retired (or known) epochs and removed credentials are kept, oldest
    /// dropped: 512 rekeys and 512 removals, a state file of at most 64 KiB.
    static let retiredLimit = 512
    static let knownLimit = 64
    static let removedLimit = 512
    /// The largest state file read (L-RB-2): the lines above at their limits fit.
    static let maximumFileByteCount = 65_536

    /// The observation of an authenticated snapshot.
    public init(_ snapshot: VaultSnapshot) {
        self.init(header: snapshot.header, headerBytes: snapshot.headerBytes, keys: snapshot.keys)
    }

    /// The observation of a header authenticated with `keys` (or just committed with them).
    init(header: VaultHeader, headerBytes: [UInt8], keys: VaultKeys) {
        self.init(
            vaultID: header.vaultID,
            generation: header.generation,
            headerHash: BLAKE2b.hash(headerBytes, length: 32),
            epoch: keys.epochFingerprint(vaultID: header.vaultID),
            credentials: header.credentialFingerprints
        )
    }

    /// The observation of a header read without keys. Only an authenticated one is ever written to
    /// the state (``RollbackGuard/observe(_:)`` takes a snapshot); `inspect` uses this to compare a
    /// file's plain header with the record.
    public init(vaultID: [UInt8], generation: UInt64, headerBytes: [UInt8]) {
        self.init(vaultID: vaultID, generation: generation, headerHash: BLAKE2b.hash(headerBytes, length: 32))
    }

    init(
        vaultID: [UInt8],
        generation: UInt64,
        headerHash: [UInt8],
        epoch: [UInt8]? = nil,
        retiredEpochs: [[UInt8]] = [],
        knownEpochs: [[UInt8]] = [],
        removedCredentials: [[UInt8]] = [],
        credentials: Set<[UInt8]> = []
    ) {
        self.vaultID = vaultID
        self.generation = generation
        self.headerHash = headerHash
        self.epoch = epoch
        self.retiredEpochs = retiredEpochs
        self.knownEpochs = knownEpochs
        self.removedCredentials = removedCredentials
        self.credentials = credentials
    }

    /// Whether the generation `other` shows puts back what this record saw replaced (L-RB-1).
    ///
    /// With both epochs known, a generation under the recorded master key is never a rollback,
    /// whatever its number: an older or same-numbered one is a fork (``fork(of:)``).
    public func finding(for other: SeenGeneration) -> RollbackFinding? {
        func found(_ kind: RollbackFinding.Kind?) -> RollbackFinding {
            RollbackFinding(vaultID: vaultID, seenGeneration: generation, foundGeneration: other.generation, kind: kind)
        }
        if let theirs = other.epoch {
            if retiredEpochs.contains(theirs) { return found(.retiredMasterKey) }
            if removedCredentials.contains(where: other.credentials.contains) { return found(.removedCredential) }
            if let epoch {
                if theirs == epoch || knownEpochs.contains(theirs) || other.generation > generation { return nil }
                return found(.unknownMasterKey)
            }
        }
        if other.generation < generation || (other.generation == generation && other.headerHash != headerHash) {
            return found(nil)
        }
        return nil
    }

    /// The generation seen that `other` forked from, when `other` is under the recorded master key
    /// and is older than it, or another copy at its generation: a branch switch, a discarded
    /// commit, the copy a sync tool kept. `nil` otherwise.
    public func fork(of other: SeenGeneration) -> UInt64? {
        guard let epoch, other.epoch == epoch, finding(for: other) == nil else { return nil }
        let forked = other.generation < generation || (other.generation == generation && other.headerHash != headerHash)
        return forked ? generation : nil
    }

    /// The record after observing `other` (L-RB-1, L-RB-6), which must not be a rollback unless
    /// `replacing`. `previous` is the observation of the generation a write of this account just
    /// replaced with `other`: what it had and `other` lacks was removed.
    func recording(_ other: SeenGeneration, previous: SeenGeneration? = nil, replacing: Bool = false) -> SeenGeneration
    {
        var retired = retiredEpochs
        var known = knownEpochs
        var removed = removedCredentials
        let newer = other.generation > generation
        var epoch = self.epoch
        func retire(_ old: [UInt8]) {
            known.removeAll { $0 == old }
            retired.insert(old, at: 0)
        }
        if let theirs = other.epoch {
            if replacing {
                // Accepting a copy: its key and credentials are current again. The key seen stays
                // current too (known): the copy is not newer than it, only accepted.
                retired.removeAll { $0 == theirs }
                removed.removeAll(where: other.credentials.contains)
                // A commit that replaced a key (a merge that kept ours' rekeyed key over theirs')
                // retires it even when accepted: the merge itself shows it was replaced.
                if let previous, let old = previous.epoch, old != theirs { retire(old) }
                if let mine = epoch, mine != theirs, !retired.contains(mine) { known.insert(mine, at: 0) }
                known.removeAll { $0 == theirs }
                epoch = theirs
            } else if let previous {
                // A commit of this account is authoritative, whatever its generation (a write on a
                // fork commits a sibling number): a key it replaced is retired (a rekey, or a
                // merge that kept the other side's key), and its own key is current.
                // A key accepted before (the record's current one) is retired too when this user
                // writes under another key: it was an older copy's key, and keeping it known
                // would trust it for good.
                if let old = previous.epoch, old != theirs { retire(old) }
                if let mine = epoch, mine != theirs, !retired.contains(mine) { retire(mine) }
                known.removeAll { $0 == theirs }
                epoch = theirs
                if previous.epoch == theirs {
                    removed.insert(
                        contentsOf: previous.credentials.subtracting(other.credentials).sorted {
                            $0.lexicographicallyPrecedes($1)
                        },
                        at: 0
                    )
                }
            } else if let mine = epoch, mine != theirs {
                // A newer generation under another master key: a rekey replaced the recorded one
                // (L-RB-1 rule 4). An older one under a known key changes nothing.
                if newer {
                    retire(mine)
                    known.removeAll { $0 == theirs }
                    epoch = theirs
                }
            } else if epoch == nil, newer || other.generation == generation {
                epoch = theirs  // a version-1 record learns its epoch
            }
        }
        let (generation, headerHash) =
            newer || replacing ? (other.generation, other.headerHash) : (self.generation, self.headerHash)
        return SeenGeneration(
            vaultID: vaultID,
            generation: generation,
            headerHash: headerHash,
            epoch: epoch,
            retiredEpochs: Array(Self.unique(retired).prefix(Self.retiredLimit)),
            knownEpochs: Array(Self.unique(known).prefix(Self.knownLimit)),
            removedCredentials: Array(Self.unique(removed).prefix(Self.removedLimit))
        )
    }

    private static func unique(_ list: [[UInt8]]) -> [[UInt8]] {
        var seen = Set<[UInt8]>()
        return list.filter { seen.insert($0).inserted }
    }

    /// A record of nothing yet: the first observation becomes it.
    static func first(_ observation: SeenGeneration) -> SeenGeneration {
        SeenGeneration(
            vaultID: observation.vaultID,
            generation: observation.generation,
            headerHash: observation.headerHash,
            epoch: observation.epoch
        )
    }

    // MARK: - The state file

    static let magicLine = "vault-seen-generation 1"
    static let magicLine2 = "vault-seen 2"

    /// The file's text (Spec/rollback.md, L-RB-2): version 2 when the epoch is known.
    var encoded: [UInt8] {
        var lines = [
            epoch == nil ? Self.magicLine : Self.magicLine2, "vault-id \(Hex.encode(vaultID))",
            "generation \(generation)", "header-blake2b-256 \(Hex.encode(headerHash))",
        ]
        if let epoch {
            lines.append("epoch \(Hex.encode(epoch))")
            lines += retiredEpochs.map { "retired-epoch \(Hex.encode($0))" }
            lines += knownEpochs.map { "known-epoch \(Hex.encode($0))" }
            lines += removedCredentials.map { "removed-credential \(Hex.encode($0))" }
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Parses a state file of version 1 or 2; `nil` when it does not follow L-RB-2 exactly.
    static func decode(_ bytes: [UInt8], vaultID: [UInt8]) -> SeenGeneration? {
        guard bytes.last == 0x0A else { return nil }
        let lines = String(decoding: bytes.dropLast(), as: UTF8.self).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        guard lines.count >= 4, lines[0] == magicLine || lines[0] == magicLine2 else { return nil }
        let version2 = lines[0] == magicLine2
        func value(_ line: Substring, _ key: String) -> String? {
            guard line.hasPrefix(key + " ") else { return nil }
            return String(line.dropFirst(key.count + 1))
        }
        func hex(_ line: Substring, _ key: String, count: Int) -> [UInt8]? {
            guard let text = value(line, key), let bytes = Hex.decode(text), bytes.count == count,
                text == Hex.encode(bytes)
            else { return nil }
            return bytes
        }
        guard let id = value(lines[1], "vault-id"), Hex.decode(id) == vaultID, id == Hex.encode(vaultID),
            let generationText = value(lines[2], "generation"),
            generationText.utf8.allSatisfy({ (48...57).contains($0) }),
            let generation = UInt64(generationText), generation >= 1,
            let hash = hex(lines[3], "header-blake2b-256", count: 32)
        else { return nil }
        guard version2 else {
            return lines.count == 4 ? SeenGeneration(vaultID: vaultID, generation: generation, headerHash: hash) : nil
        }
        guard lines.count >= 5, let epoch = hex(lines[4], "epoch", count: 16) else { return nil }
        var retired: [[UInt8]] = []
        var known: [[UInt8]] = []
        var removed: [[UInt8]] = []
        for line in lines.dropFirst(5) {
            // In this order: retired-epoch lines, known-epoch lines, removed-credential lines.
            if known.isEmpty, removed.isEmpty, let value = hex(line, "retired-epoch", count: 16) {
                retired.append(value)
            } else if removed.isEmpty, let value = hex(line, "known-epoch", count: 16) {
                known.append(value)
            } else if let value = hex(line, "removed-credential", count: 16) {
                removed.append(value)
            } else {
                return nil
            }
        }
        guard retired.count <= retiredLimit, known.count <= knownLimit, removed.count <= removedLimit else {
            return nil
        }
        return SeenGeneration(
            vaultID: vaultID,
            generation: generation,
            headerHash: hash,
            epoch: epoch,
            retiredEpochs: retired,
            knownEpochs: known,
            removedCredentials: removed
        )
    }
}

/// The per-user store of the newest generation seen of each vault, which notices a whole file put back.
///
/// One small file per vault ID, `<directory>/<32 hex digits>.seen`, mode `0600`, in a
/// directory created with mode `0700`. It holds the vault ID, the highest generation
/// seen and the BLAKE2b-256 hash of that generation's header: nothing that a copy of
/// the vault's header does not already show, and no secret. Updates take an OFD lock
/// on `<file>.lock` and keep the higher generation (merge-max), so two processes never
/// move the record back; each update is written with the vault's own atomic writer
/// (temporary file, `fsync`, `rename`, directory `fsync`).
///
/// Only snapshots record: a `VaultSnapshot` exists only after its header MAC was
/// verified, so a file written without the vault's keys cannot raise the record (which
/// would make the real vault look rolled back).
///
/// What it cannot see: a machine (or user) that never opened the vault, a deleted or
/// reset state directory, and an older copy put back before this user first opened the
/// newer one. Spec: Spec/rollback.md (L-RB-1 to L-RB-7).
public struct RollbackGuard: Sendable {
    /// The state directory, or `nil` when the check is off.
    public let directory: String?

    /// How long an update waits for another process updating the same record.
    static let lockTimeout: Duration = .seconds(5)

    /// Whether observations may create and raise the record; `false` for a read-only
    /// configuration, which only compares (L-RO-1).
    let recording: Bool

    /// Resolves `location`; with `recording` false, the record is compared and never written.
    public init(_ location: RollbackStateLocation, recording: Bool = true) {
        self.recording = recording
        switch location {
        case .standard: directory = Self.standardDirectory()
        case .directory(let path): directory = DeviceSecretFile.absolute(path)
        case .disabled: directory = nil
        }
    }

    /// `$XDG_STATE_HOME/vault/seen`, `$HOME/.local/state/vault/seen`, or the passwd home's; `nil` without any.
    static func standardDirectory() -> String? {
        if let xdg = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            return xdg + "/vault/seen"
        }
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            return home + "/.local/state/vault/seen"
        }
        if let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir, home.pointee == 0x2F {
            return String(cString: home) + "/.local/state/vault/seen"
        }
        return nil
    }

    /// The state file of `vaultID`, or `nil` when the check is off.
    public func statePath(vaultID: [UInt8]) -> String? {
        directory.map { $0 + "/" + Hex.encode(vaultID) + ".seen" }
    }

    // MARK: - Reading

    /// What is recorded of `vaultID`; `nil` when nothing is (or the check is off).
    ///
    /// - Throws: ``VaultIOError/Code/rollbackStateInvalid`` when the file is not a state
    ///   file of this vault, is not a regular file of this user, or is writable by others;
    ///   a ``VaultIOError`` (`"open"`, `"read"`) when it cannot be read.
    public func recorded(vaultID: [UInt8]) throws -> SeenGeneration? {
        guard let directory, let path = statePath(vaultID: vaultID) else { return nil }
        try Self.checkTrusted(directory)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw Self.unusable(VaultIOError.system("open rollback state", error, path: path), directory)
        }
        return try descriptor.closeAfter {
            let status = try step("fstat rollback state", path) { () throws(Errno) in try descriptor.status() }
            guard status.isRegularFile, status.user == geteuid(), status.permissions & 0o022 == 0 else {
                throw invalid(path, "it must be a regular file of this user that nobody else can write")
            }
            let bytes = try step("read rollback state", path) { () throws(Errno) in
                try descriptor.read(count: SeenGeneration.maximumFileByteCount + 1, at: 0)
            }
            guard bytes.count <= SeenGeneration.maximumFileByteCount,
                let seen = SeenGeneration.decode(bytes, vaultID: vaultID)
            else {
                throw invalid(path, "it is not a state file of this vault")
            }
            return seen
        }
    }

    /// What the record says of `snapshot` (an older copy that brings back a retired master key or
    /// a removed credential), without recording anything: `nil` when the record finds nothing,
    /// holds nothing of this vault, cannot be read, or the check is off.
    ///
    /// ```swift
    /// let retired = RollbackGuard(.standard).finding(for: theirs)?.kind == .retiredMasterKey
    /// ```
    public func finding(for snapshot: VaultSnapshot) -> RollbackFinding? {
        (try? recorded(vaultID: snapshot.header.vaultID))?.finding(for: SeenGeneration(snapshot))
    }

    // MARK: - Checking and recording

    /// Compares an authenticated snapshot with the record, and raises the record when the snapshot is newer.
    ///
    /// - Returns: The finding when the snapshot puts back what the record saw replaced; the record
    ///   is then left as it is.
    /// - Throws: ``VaultIOError/Code/rollbackStateInvalid``; a ``VaultIOError`` naming the step.
    public func observe(_ snapshot: VaultSnapshot) throws -> RollbackFinding? {
        try update(SeenGeneration(snapshot), replacing: false)
    }

    /// Records an authenticated snapshot as the newest generation, even when an older one than recorded:
    /// the caller accepts a copy put back on purpose. A state file that cannot be parsed is replaced.
    public func accept(_ snapshot: VaultSnapshot) throws {
        _ = try update(SeenGeneration(snapshot), replacing: true)
    }

    /// Under the record's lock: reads it, compares, and writes what `seen` teaches (or `seen` itself
    /// when `replacing`). `previous` is the generation a write of this account replaced with `seen`.
    func update(_ seen: SeenGeneration, previous: SeenGeneration? = nil, replacing: Bool) throws -> RollbackFinding? {
        guard let directory, let path = statePath(vaultID: seen.vaultID) else { return nil }
        // The usual case, a read of a generation already recorded, needs neither the lock nor a write.
        // The record is replaced atomically, and what it teaches is only ever added to (L-RB-6), so
        // an unlocked look that finds nothing to add stays true; only a change needs the lock.
        // A commit of this account (`previous` given) is recorded, never judged: it is the newest
        // state by definition, even at a sibling's generation number (a rekey on a fork).
        let judged = !replacing && previous == nil
        if !replacing, let old = try recorded(vaultID: seen.vaultID) {
            if judged, let finding = old.finding(for: seen) { return finding }
            if old.recording(seen, previous: previous) == old { return nil }
        }
        guard recording else { return nil }
        do {
            try DeviceSecretFile.makeDirectories(directory)
        } catch let error as VaultIOError where error.code == .system {
            throw Self.unusable(error, directory, operation: "create rollback state directory")
        }
        try Self.checkTrusted(directory)
        let target = VaultPath(path: path, directory: directory, name: Hex.encode(seen.vaultID) + ".seen")
        return try WriteLock(target: target).withLock(timeout: Self.lockTimeout) {
            let old: SeenGeneration?
            do {
                old = try recorded(vaultID: seen.vaultID)
            } catch let error as VaultIOError where replacing && error.code == .rollbackStateInvalid {
                old = nil
            }
            if let old, judged, let finding = old.finding(for: seen) { return finding }
            let new = old.map { $0.recording(seen, previous: previous, replacing: replacing) } ?? .first(seen)
            if new == old { return nil }
            var info = stat()
            info.st_mode = S_IFREG | 0o600
            info.st_uid = geteuid()
            info.st_gid = getegid()
            let exists = old != nil || access(path, F_OK) == 0
            try AtomicWriter(target: target).commit(new.encoded, exists ? .replace(FileStatus(info)) : .create)
            return nil
        }
    }

    /// `error` with the setting that decides where the record lives: a server account without
    /// a home, or with a read-only one, must learn what to change.
    static func unusable(_ error: VaultIOError, _ directory: String, operation: String? = nil) -> VaultIOError {
        VaultIOError(
            .system,
            operation: operation ?? error.operation,
            errno: error.errno,
            path: error.path,
            reason: "the rollback record (VaultConfiguration.rollbackState) cannot be kept under '\(directory)'; "
                + "set rollbackState to a directory this account can write (vaulttool: XDG_STATE_HOME), "
                + "or to .disabled where no record can be kept"
        )
    }

    private func invalid(_ path: String, _ reason: String) -> VaultIOError {
        VaultIOError(.rollbackStateInvalid, operation: "read rollback state", path: path, reason: reason)
    }

    // MARK: - Stale snapshots

    /// Observes `snapshot`; when it looks rolled back but the file at `path` changed since it was
    /// opened (a writer committed, and recorded, meanwhile), opens the new file with the same keys and
    /// observes that instead, a few times at most.
    ///
    /// - Returns: The snapshot observed last and its finding, if any.
    public func observeNewest(_ snapshot: VaultSnapshot, at path: String) throws -> (
        snapshot: VaultSnapshot, finding: RollbackFinding?
    ) {
        var snapshot = snapshot
        for _ in 0..<3 {
            guard let finding = try observe(snapshot) else { return (snapshot, nil) }
            guard let reader = try? VaultFileReader(path: path), let bytes = try? reader.headerBytes(),
                bytes != snapshot.headerBytes,
                let newer = try? VaultSnapshot.open(
                    headerBytes: bytes,
                    fileLength: reader.fileLength,
                    source: reader,
                    keys: snapshot.keys,
                    openedKeyslot: snapshot.openedKeyslot
                ),
                newer.header.vaultID == snapshot.header.vaultID
            else { return (snapshot, finding) }
            snapshot = newer
        }
        return (snapshot, try observe(snapshot))
    }
}
