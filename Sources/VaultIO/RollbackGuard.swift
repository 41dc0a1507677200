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

/// A vault file whose generation is below the one recorded, or whose header differs at the same generation.
public struct RollbackFinding: Sendable, Hashable, CustomStringConvertible {
    /// How the file differs from what was recorded.
    public enum Kind: Sendable, Hashable {
        /// The file's generation is lower than the highest one seen.
        case olderGeneration
        /// The file has the generation seen, but another header (a fork: two copies written apart).
        case differentHeader
    }

    /// The vault's ID.
    public let vaultID: [UInt8]
    /// The highest generation seen of this vault.
    public let seenGeneration: UInt64
    /// The generation of the file opened now.
    public let foundGeneration: UInt64

    /// How the file differs from what was recorded.
    public var kind: Kind { foundGeneration < seenGeneration ? .olderGeneration : .differentHeader }

    /// Creates a finding.
    public init(vaultID: [UInt8], seenGeneration: UInt64, foundGeneration: UInt64) {
        self.vaultID = vaultID
        self.seenGeneration = seenGeneration
        self.foundGeneration = foundGeneration
    }

    /// For example: `generation 3 is older than generation 5 seen before`.
    public var description: String {
        switch kind {
        case .olderGeneration:
            "generation \(foundGeneration) is older than generation \(seenGeneration) seen before"
        case .differentHeader:
            "generation \(foundGeneration) differs from the generation \(seenGeneration) seen before"
        }
    }
}

/// What the state file records of one vault: no secret, only what a copy of its header shows.
public struct SeenGeneration: Sendable, Hashable {
    /// The vault's ID (16 bytes).
    public let vaultID: [UInt8]
    /// The highest generation seen.
    public let generation: UInt64
    /// `BLAKE2b-256(headerBytes)` of that generation's header, MAC included.
    public let headerHash: [UInt8]

    /// The record of an authenticated snapshot.
    public init(_ snapshot: VaultSnapshot) {
        self.init(
            vaultID: snapshot.header.vaultID,
            generation: snapshot.header.generation,
            headerBytes: snapshot.headerBytes
        )
    }

    /// The record of a header. Only an authenticated one is ever written to the state
    /// (``RollbackGuard/observe(_:)`` takes a snapshot); `inspect` uses this to compare a
    /// file's plain header with the record.
    public init(vaultID: [UInt8], generation: UInt64, headerBytes: [UInt8]) {
        self.init(vaultID: vaultID, generation: generation, headerHash: BLAKE2b.hash(headerBytes, length: 32))
    }

    init(vaultID: [UInt8], generation: UInt64, headerHash: [UInt8]) {
        self.vaultID = vaultID
        self.generation = generation
        self.headerHash = headerHash
    }

    /// Whether a file with `other`'s generation and header is older than, or forked from, this one.
    public func finding(for other: SeenGeneration) -> RollbackFinding? {
        if other.generation < generation || (other.generation == generation && other.headerHash != headerHash) {
            return RollbackFinding(vaultID: vaultID, seenGeneration: generation, foundGeneration: other.generation)
        }
        return nil
    }

    // MARK: - The state file

    static let magicLine = "vault-seen-generation 1"

    /// The file's text: four lines (Spec/rollback.md, L-RB-2).
    var encoded: [UInt8] {
        let lines = [
            Self.magicLine, "vault-id \(Hex.encode(vaultID))", "generation \(generation)",
            "header-blake2b-256 \(Hex.encode(headerHash))",
        ]
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Parses a state file; `nil` when it does not follow L-RB-2 exactly.
    static func decode(_ bytes: [UInt8], vaultID: [UInt8]) -> SeenGeneration? {
        guard bytes.last == 0x0A else { return nil }
        let lines = String(decoding: bytes.dropLast(), as: UTF8.self).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        guard lines.count == 4, lines[0] == magicLine else { return nil }
        func value(_ line: Substring, _ key: String) -> String? {
            guard line.hasPrefix(key + " ") else { return nil }
            return String(line.dropFirst(key.count + 1))
        }
        guard let id = value(lines[1], "vault-id"), Hex.decode(id) == vaultID, id == Hex.encode(vaultID),
            let generationText = value(lines[2], "generation"),
            generationText.utf8.allSatisfy({ (48...57).contains($0) }),
            let generation = UInt64(generationText), generation >= 1,
            let hashText = value(lines[3], "header-blake2b-256"), let hash = Hex.decode(hashText), hash.count == 32,
            hashText == Hex.encode(hash)
        else { return nil }
        return SeenGeneration(vaultID: vaultID, generation: generation, headerHash: hash)
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

    /// Resolves `location`.
    public init(_ location: RollbackStateLocation) {
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
        guard let path = statePath(vaultID: vaultID) else { return nil }
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw VaultIOError.system("open rollback state", error, path: path)
        }
        return try descriptor.closeAfter {
            let status = try step("fstat rollback state", path) { () throws(Errno) in try descriptor.status() }
            guard status.isRegularFile, status.user == geteuid(), status.permissions & 0o022 == 0 else {
                throw invalid(path, "it must be a regular file of this user that nobody else can write")
            }
            let bytes = try step("read rollback state", path) { () throws(Errno) in
                try descriptor.read(count: 1024, at: 0)
            }
            guard let seen = SeenGeneration.decode(bytes, vaultID: vaultID) else {
                throw invalid(path, "it is not a state file of this vault")
            }
            return seen
        }
    }

    // MARK: - Checking and recording

    /// Compares an authenticated snapshot with the record, and raises the record when the snapshot is newer.
    ///
    /// - Returns: The finding when the snapshot is older than (or forked from) the record; the record
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

    /// Under the record's lock: reads it, compares, and writes `seen` when it is newer (or `replacing`).
    func update(_ seen: SeenGeneration, replacing: Bool) throws -> RollbackFinding? {
        guard let directory, let path = statePath(vaultID: seen.vaultID) else { return nil }
        // The usual case, a read of a generation already recorded, needs neither the lock nor a write.
        // The record is replaced atomically and only rises (L-RB-6), so an unlocked look that finds it
        // at or above this generation stays true; only raising it needs the lock.
        if !replacing, let old = try recorded(vaultID: seen.vaultID) {
            if let finding = old.finding(for: seen) { return finding }
            if old.generation >= seen.generation { return nil }
        }
        try DeviceSecretFile.makeDirectories(directory)
        let target = VaultPath(path: path, directory: directory, name: Hex.encode(seen.vaultID) + ".seen")
        return try WriteLock(target: target).withLock(timeout: Self.lockTimeout) {
            let old: SeenGeneration?
            do {
                old = try recorded(vaultID: seen.vaultID)
            } catch let error as VaultIOError where replacing && error.code == .rollbackStateInvalid {
                old = nil
            }
            if let old, !replacing {
                if let finding = old.finding(for: seen) { return finding }
                if old.generation >= seen.generation { return nil }  // the same generation, already recorded
            }
            if old == seen { return nil }
            var info = stat()
            info.st_mode = S_IFREG | 0o600
            info.st_uid = geteuid()
            info.st_gid = getegid()
            let exists = old != nil || access(path, F_OK) == 0
            try AtomicWriter(target: target).commit(seen.encoded, exists ? .replace(FileStatus(info)) : .create)
            return nil
        }
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
