// vault: the embeddable API: a vault file opened with credentials.

import Glibc
import Synchronization
public import VaultFormat

/// A vault file opened with credentials, shaped like GRDB's `DatabaseQueue`.
///
/// ```swift
/// let vault = try Vault(path: "/home/me/keys.vault", credentials: .password(passphrase))
/// let count = try vault.read { snapshot in snapshot.index.entries.count }
/// try vault.write { txn in try txn.set(draft) }
/// ```
///
/// **Reads** open the newest generation of the file and take no lock: a writer
/// never changes a byte that a commit reaches, so a reader sees one whole
/// generation.
///
/// **Writes** take the write lock (see ``VaultConfiguration/lockTimeout``),
/// re-read the newest generation from disk, run the body, and commit every
/// change at once: a format-3 vault by appending what changed and writing its
/// other commit slot, with one `fdatasync` (Spec/format-v3.md §9.1); a full
/// rewrite (format 3's migration, rekey and compaction, and every write of
/// formats 1 and 2) by writing a new file and renaming it over the old one. A
/// vault may be shared by threads (it is `Sendable`) and by processes.
///
/// **Keys, not credentials.** Opening runs the keyslot's key derivation
/// (Argon2id for a password) once. The `Vault` then keeps the unlocked
/// ``VaultKeys`` in guarded memory and opens every newer generation with them
/// (the master key never changes, R-KS-5), so reads and writes cost no KDF.
/// The password and key file are *not* kept: they are dropped when the
/// initializer returns, so a password that is also used elsewhere does not
/// stay in this process. Only the device secret is kept, because the
/// device-bound classes need it for every record. When the held keys stop
/// opening the file (a vault rekeyed by another writer, or an altered header),
/// the `Vault` throws ``VaultIOError/Code/credentialsRequired`` (through a
/// ``Keychain``: ``KeychainError/credentialsRequired``) and adopts no key from
/// the file until ``unlock(with:)`` is given the credential (L-KEY-3).
///
/// **Locking.** ``lock()`` (and ``VaultConfiguration/idleTimeout``) drop the
/// master key and the `whenUnlocked` class keys; see <doc:ProtectionClasses>.
///
/// The path is resolved once, at open: symbolic links are followed and the
/// vault keeps using the resolved file, so replacing a symlink later does not
/// redirect an open `Vault`.
public final class Vault: Sendable {
    /// The resolved path of the vault file.
    public var path: String { location.path }
    /// The vault's random identifier, from the header read at open.
    public let vaultID: [UInt8]
    /// The settings given at open.
    public let configuration: VaultConfiguration

    let location: VaultPath
    /// This machine's device secret, when the credentials or the configuration gave one.
    let deviceSecret: DeviceSecret?
    let writeLock: WriteLock
    let keyState: Mutex<KeyState>
    /// The per-user record of generations seen (``VaultConfiguration/rollbackState``).
    let rollbackGuard: RollbackGuard
    /// What the latest open or read found under ``RollbackPolicy/allowReads``.
    let lastRollback: Mutex<RollbackFinding?>
    /// Why the latest open or read went on without the rollback check (L-RB-10).
    let lastRollbackStateError: Mutex<VaultIOError?>

    /// The keys held in memory and what they came from.
    struct KeyState: Sendable {
        /// The keys reads and writes use; without the master key once locked.
        var keys: VaultKeys
        /// The keyslot that produced `keys`.
        var openedKeyslot: Int
        /// Whether ``Vault/lock()`` (or the idle timeout) dropped the `whenUnlocked` keys.
        var isLocked = false
        /// The last read or write, for the idle timeout.
        var lastUse = ContinuousClock.now
        /// Whether an idle check is queued.
        var idleCheckScheduled = false
    }

    init(
        location: VaultPath,
        vaultID: [UInt8],
        keys: VaultKeys,
        openedKeyslot: Int,
        configuration: VaultConfiguration,
        rollback: RollbackFinding? = nil,
        rollbackStateError: VaultIOError? = nil
    ) {
        self.location = location
        self.vaultID = vaultID
        self.deviceSecret = keys.deviceSecret
        self.configuration = configuration
        writeLock = WriteLock(target: location)
        keyState = Mutex(KeyState(keys: keys, openedKeyslot: openedKeyslot))
        rollbackGuard = RollbackGuard(configuration.rollbackState, recording: !configuration.readOnly)
        lastRollback = Mutex(rollback)
        lastRollbackStateError = Mutex(rollbackStateError)
    }

    // MARK: - Opening and creating

    /// Opens an existing vault and checks the credentials.
    ///
    /// - Parameters:
    ///   - path: The vault file; a symbolic link is resolved once, here.
    ///   - credentials: What unlocks a keyslot. Used once, to unlock; only the device secret is kept.
    ///   - configuration: Lock timeout, idle timeout, device-secret file, rollback state and policy.
    /// - Throws: A ``VaultIOError`` when the file cannot be read; a ``VaultFormatError``
    ///   when it is not a valid vault or no keyslot opens (`wrongCredential`);
    ///   ``VaultIOError/Code/rolledBack`` when the file is older than one seen before and
    ///   ``VaultConfiguration/rollbackPolicy`` is ``RollbackPolicy/refuse``.
    public convenience init(
        path: String,
        credentials: Credentials,
        configuration: VaultConfiguration = VaultConfiguration()
    ) throws {
        let (location, credentials) = try Self.resolvingExisting(path, credentials, configuration)
        let opened = try VaultFileReader(path: location.path).open(with: credentials)
        // Checked only now that the header MAC is verified (L-RB-3).
        try self.init(location: location, screening: opened, configuration: configuration)
    }

    /// Creates a new, empty vault file, failing if a file exists at `path`.
    ///
    /// The file gets mode `0600`. Keyslots of kind ``Keyslot/Kind/device`` wrap only
    /// the base key, so that the device secret alone opens the `always` classes and
    /// nothing else; the other kinds wrap the master key.
    ///
    /// - Parameters:
    ///   - path: Where to create the vault; its directory must exist.
    ///   - credentials: Must hold what every kind in `keyslots` needs.
    ///   - keyslots: One keyslot per kind, in this order; at least one must be a
    ///     password or key-file kind, which wraps the master key.
    ///   - configuration: KDF cost of password keyslots, lock timeout, device-secret file.
    ///   - now: The creation time, milliseconds since the Unix epoch.
    /// - Returns: The vault, open with `credentials`.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when a file is at `path`; a
    ///   ``VaultFormatError`` (`kdfRejected`, `invalidParameter`) for unusable
    ///   keyslots; a ``VaultIOError`` naming the commit step that failed.
    public static func create(
        at path: String,
        credentials: Credentials,
        keyslots: [Keyslot.Kind] = [.password],
        configuration: VaultConfiguration = VaultConfiguration(),
        now: Int64 = Vault.currentTime()
    ) throws -> Vault {
        guard keyslots.contains(where: { $0 != .device }) else {
            throw VaultFormatError(.invalidParameter, "a vault needs a password or key-file keyslot for its master key")
        }
        let slots = keyslots.map { ($0, $0 == .device ? Keyslot.Scope.baseKey : .masterKey) }
        return try create(at: path, credentials: credentials, slots: slots, configuration: configuration, now: now)
    }

    /// Creates a vault with keyslots of explicit scopes (``Vault/standard(directory:configuration:)`` uses a
    /// master-scope device slot).
    static func create(
        at path: String,
        credentials: Credentials,
        slots: [(Keyslot.Kind, Keyslot.Scope)],
        configuration: VaultConfiguration,
        now: Int64
    ) throws -> Vault {
        try configuration.refuseTestingConfiguration(at: path)  // L-TEST-1, before the path is touched
        guard !configuration.readOnly else { throw readOnlyError(path) }
        let location = try VaultPath.resolvingNew(path)
        try configuration.refuseTestingConfiguration(at: location.path)  // and through symbolic links
        let credentials = try addingDeviceSecret(to: credentials, configuration)
        guard let opened = slots.firstIndex(where: { $0.1 == .masterKey }) else {
            throw VaultFormatError(.invalidParameter, "a vault needs a keyslot for its master key")
        }
        let random = SystemRandom()
        let master: MasterKey = random.key()
        let vaultID = random.bytes(16)
        let keyslots = try slots.map { kind, scope in
            try KeyHierarchy.makeKeyslot(
                kind: kind,
                wrapping: scope == .baseKey ? KeyHierarchy.baseKey(from: master).secret : master.secret,
                scope: scope,
                credentials: credentials,
                kdf: configuration.kdf,
                vaultID: vaultID,
                random: random,
                allowWeak: configuration.kdfFloor == .waivedForTesting
            )
        }
        let keys = KeyHierarchy.keys(master: master, deviceSecret: credentials.deviceSecret, vaultID: vaultID)
        var writer = try VaultWriter(vaultID: vaultID, created: now, keyslots: keyslots, keys: keys)
        if configuration.newVaultFormat == .version3 { try writer.upgradeToVersion3() }
        let bytes = try writer.encode(now: now)
        let vault = Vault(
            location: location,
            vaultID: vaultID,
            keys: keys,
            openedKeyslot: opened,
            configuration: configuration
        )
        try vault.writeLock.withLock(timeout: configuration.lockTimeout) {
            try AtomicWriter(target: location).commit(bytes, .create)
        }
        vault.recordCommit(.whole(bytes), keys: keys, replacing: nil, accepted: true)
        return vault
    }

    // MARK: - Reading and writing

    /// Opens the newest generation of the vault and passes it to `body`. Takes no lock and runs no KDF.
    ///
    /// - Parameter body: Reads from the snapshot, which stays valid (its file open) while it is kept.
    /// - Returns: What `body` returns.
    /// - Throws: A ``VaultIOError`` or ``VaultFormatError`` from opening the file;
    ///   ``VaultIOError/Code/conflict`` when the path now holds a different vault;
    ///   ``VaultIOError/Code/locked`` when `body` reads a `whenUnlocked` item of a locked vault;
    ///   ``VaultIOError/Code/rolledBack`` (see ``VaultConfiguration/rollbackPolicy``);
    ///   or `body`'s error.
    public func read<T>(_ body: (VaultSnapshot) throws -> T) throws -> T {
        let snapshot = try screenForReading(try openNewest().snapshot)
        return try translatingLocked { try body(snapshot) }
    }

    /// Writes `body`'s changes to a fresh copy of the vault and swaps it in atomically.
    ///
    /// Changes commit if and only if `body` returns without throwing; otherwise the
    /// original file is left byte-for-byte untouched. A body that changes nothing
    /// does not write the file. When the body changes the keyslots (a password
    /// change), this `Vault` keeps working: the master key is unchanged (R-KS-5), or,
    /// after ``VaultTransaction/rekey(_:)``, this `Vault` adopts the new keys once the
    /// write commits.
    ///
    /// - Parameter body: A closure that edits the vault's items.
    /// - Returns: The value returned by `body`.
    /// - Throws: ``VaultIOError/Code/lockTimeout``; a ``VaultIOError`` when the copy,
    ///   `fsync` or `rename` fails (the old file stays); ``VaultIOError/Code/conflict``;
    ///   ``VaultIOError/Code/locked``; ``VaultIOError/Code/rolledBack`` unless
    ///   ``VaultConfiguration/rollbackPolicy`` is ``RollbackPolicy/accept``; a ``VaultFormatError``;
    ///   or the error thrown by `body`.
    @discardableResult
    public func write<T>(_ body: (inout VaultTransaction) throws -> T) throws -> T {
        try withWriteLock {
            let (reader, snapshot, accepted) = try openNewestForWriting()
            var transaction = VaultTransaction(
                writer: try VaultWriter(updating: snapshot),
                now: Self.currentTime(),
                kdf: configuration.kdf,
                kdfFloor: configuration.kdfFloor
            )
            let result = try translatingLocked { try body(&transaction) }
            if transaction.hasChanges {
                try transaction.checkTPM2IsNotTheOnlyWayIn()
                let written = try transaction.writer.encodeGeneration(now: transaction.now)
                try commit(written, replacing: reader.status, previous: snapshot)
                recordCommit(written, keys: transaction.writer.keys, replacing: snapshot, accepted: accepted)
                if transaction.rekeyed {
                    // L-KS-5: the writer holds the new master key; the old keys no longer open the file.
                    let keys = transaction.writer.keys
                    keyState.withLock { state in
                        // A lock() on another thread during the write stays in force (L-PC-1).
                        state.keys = state.isLocked ? keys.locked(dropping: Self.lockedClasses) : keys
                    }
                }
                if transaction.keyslotsChanged {
                    followKeyslot(from: snapshot.header.keyslots, to: transaction.keyslots)
                }
            }
            return result
        }
    }

    /// Puts a new generation in place of `previous`, read from the file `status` describes: a
    /// whole file with the copy-on-write writer, or a format-3 in-place commit (Spec/format-v3.md
    /// §9). The caller holds the write lock.
    func commit(_ written: EncodedGeneration, replacing status: FileStatus, previous: VaultSnapshot)
        throws(VaultIOError)
    {
        switch written {
        case .whole(let bytes): try AtomicWriter(target: location).commit(bytes, .replace(status))
        case .inPlace(let commit):
            try InPlaceWriter(target: location).commit(
                commit,
                onto: status,
                currentSlot: Array(previous.headerBytes.prefix(CommitSlot.byteCount))
            )
        }
    }

    /// Opens the file now at the vault's path for a write (the caller holds the write lock), and
    /// screens it for rollback: a write never builds on a copy put back unless the policy accepts
    /// it (L-RB-5).
    ///
    /// - Returns: As ``openNewest()``, and whether a rolled-back file was accepted.
    func openNewestForWriting() throws -> (reader: VaultFileReader, snapshot: VaultSnapshot, accepted: Bool) {
        let (reader, snapshot) = try openNewest()
        let accepted = try Self.screen(
            snapshot,
            path: location.path,
            rollbackGuard: rollbackGuard,
            policy: configuration.rollbackPolicy,
            forWriting: true
        ).accepted
        return (reader, snapshot, accepted)
    }

    /// Opens the file now at the vault's path with the keys held in memory.
    func openNewest() throws -> (reader: VaultFileReader, snapshot: VaultSnapshot) {
        let reader = try VaultFileReader(path: location.path)
        let head = try reader.head()
        let headerBytes = head.bytes
        let header = try VaultHeader.decode(headerBytes, fileLength: reader.fileLength)
        guard header.vaultID == vaultID else {
            throw VaultIOError(
                .conflict,
                operation: "open",
                path: location.path,
                reason: "the file now holds a different vault"
            )
        }
        let (keys, slot) = useKeys()
        do {
            let snapshot = try VaultSnapshot.open(
                headerBytes: headerBytes,
                fileLength: reader.fileLength,
                source: reader,
                keys: keys,
                openedKeyslot: slot
            ).noting(head)
            return (reader, snapshot)
        } catch let error as VaultFormatError where error.code == .headerAuthentication {
            // The held keys no longer authenticate the file: it was altered, or replaced by another
            // vault with the same ID. Never adopt keys from it (L-KEY-3): the device secret alone
            // would let whoever can write the file and read the device secret swap in a master key
            // of their own, and every later write would be sealed for them.
            throw VaultIOError(
                .credentialsRequired,
                operation: "open",
                path: location.path,
                reason: "the vault's header no longer authenticates with the keys held: another writer rekeyed "
                    + "or replaced it, or it was altered; unlock it again with a password or key file"
            )
        }
    }

    /// After a keyslot change, points ``KeyState/openedKeyslot`` at the same slot in its new position.
    private func followKeyslot(from old: [Keyslot], to new: [Keyslot]) {
        keyState.withLock { state in
            let previous = old.indices.contains(state.openedKeyslot) ? old[state.openedKeyslot] : nil
            // A rekey rewraps a kept slot with a new nonce; its kind, scope and random salt stay.
            if let previous,
                let moved = new.firstIndex(of: previous)
                    ?? new.firstIndex(where: {
                        $0.kind == previous.kind && $0.scope == previous.scope && $0.salt == previous.salt
                    })
            {
                state.openedKeyslot = moved
            } else if !new.indices.contains(state.openedKeyslot) {
                state.openedKeyslot = new.firstIndex { $0.scope == .masterKey } ?? 0
            }
        }
    }

    // MARK: - Helpers

    /// The current time in milliseconds since the Unix epoch.
    ///
    /// The corresponding C function is `clock_gettime`.
    public static func currentTime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000 + clockSkew
    }

    /// Milliseconds that ``currentTime()`` adds for the current task: 0, except where the
    /// reliability suite plays a machine whose clock is wrong (`_VaultHooks.Clock`). Every time a
    /// write records (deletion times, scope counters, merges) comes from ``currentTime()``.
    @TaskLocal package static var clockSkew: Int64 = 0

    /// Runs `body` under the write lock; every write of a `Vault` (a transaction, a merge, a
    /// migration) goes through here, so that a read-only configuration stops them all (L-RO-1).
    func withWriteLock<R>(_ body: () throws -> R) throws -> R {
        guard !configuration.readOnly else { throw Self.readOnlyError(location.path) }
        return try writeLock.withLock(timeout: configuration.lockTimeout, body)
    }

    /// What a write or a create through a read-only configuration throws (L-RO-1).
    static func readOnlyError(_ path: String) -> VaultIOError {
        VaultIOError(
            .readOnly,
            operation: "write",
            path: path,
            reason: "the vault was opened with VaultConfiguration.readOnly; open it without to change it"
        )
    }

    /// The first steps of every open of an existing vault (a ``Vault``, a ``CredentialSession``):
    /// the testing configuration refused before the path is touched and again through symbolic
    /// links (L-TEST-1), the path resolved once, and the device secret added.
    static func resolvingExisting(
        _ path: String,
        _ credentials: Credentials,
        _ configuration: VaultConfiguration
    ) throws -> (location: VaultPath, credentials: Credentials) {
        try configuration.refuseTestingConfiguration(at: path)  // L-TEST-1, before the path is touched
        let location = try VaultPath.resolvingExisting(path)
        try configuration.refuseTestingConfiguration(at: location.path)  // and through symbolic links
        return (location, try addingDeviceSecret(to: credentials, configuration))
    }

    /// Adds the device secret from ``VaultConfiguration/deviceSecretPath`` when the credentials have none,
    /// creating the file first when ``VaultConfiguration/deviceSecretCreation`` allows.
    static func addingDeviceSecret(
        to credentials: Credentials,
        _ configuration: VaultConfiguration
    ) throws -> Credentials {
        guard credentials.deviceSecret == nil, let path = configuration.deviceSecretPath else { return credentials }
        var credentials = credentials
        switch configuration.readOnly ? .never : configuration.deviceSecretCreation {
        case .never: credentials.deviceSecret = try DeviceSecretFile.load(at: path, tpm2: configuration.tpm2Device)
        case .ifMissing:
            credentials.deviceSecret = try DeviceSecretFile.loadOrCreate(at: path, tpm2: configuration.tpm2Device)
        }
        return credentials
    }
}
