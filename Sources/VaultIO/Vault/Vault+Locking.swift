// vault: locking a Vault: dropping the whenUnlocked keys, unlocking again, the idle timeout.

import Dispatch
import Synchronization
public import VaultFormat

extension Vault {
    /// The classes whose keys ``lock()`` drops: `whenUnlocked`, `whenUnlockedThisDeviceOnly`
    /// and `whenPasscodeSetThisDeviceOnly`.
    ///
    /// Spec: Spec/library-semantics.md, "Locking" (L-PC-1).
    public static let lockedClasses: Set<ProtectionClass> = [
        .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly,
    ]

    // MARK: - Lock state

    /// Whether ``lock()`` or the idle timeout has dropped the `whenUnlocked` keys.
    public var isLocked: Bool {
        checkIdle()
        return keyState.withLock { $0.isLocked }
    }

    /// The keyslot whose credential unlocked the keys this vault holds, as a position in the header.
    public var openedKeyslot: Int { keyState.withLock { $0.openedKeyslot } }

    /// The protection classes whose items this vault can read now.
    public var availableClasses: Set<ProtectionClass> {
        checkIdle()
        return keyState.withLock { $0.keys.availableClasses }
    }

    /// The classes whose keys are held now, without applying the idle timeout (for tests of the timer).
    package var heldClasses: Set<ProtectionClass> { keyState.withLock { $0.keys.availableClasses } }

    /// Drops the master key and the keys of the `whenUnlocked` classes from memory.
    ///
    /// Their memory is zeroed as soon as no snapshot still holds them. Afterwards,
    /// reading a `whenUnlocked`, `whenUnlockedThisDeviceOnly` or
    /// `whenPasscodeSetThisDeviceOnly` item throws ``VaultIOError/Code/locked``
    /// (never `nil`), and so do keyslot changes. Items of the `afterFirstUnlock`
    /// and `always` classes stay readable and writable until the `Vault` is
    /// released. Locking a locked vault does nothing.
    ///
    /// Spec: Spec/library-semantics.md, "Locking" (L-PC-1, L-PC-2).
    public func lock() {
        keyState.withLock { state in
            guard !state.isLocked else { return }
            state.keys = state.keys.locked(dropping: Self.lockedClasses)
            state.isLocked = true
        }
    }

    /// Unlocks the vault again: runs the keyslot's key derivation on the newest generation.
    ///
    /// - Parameter credentials: A password or key file, checked against their own keyslots:
    ///   the device secret this vault holds is not added to them, so a wrong password
    ///   never unlocks through a device keyslot. `nil` unlocks with the held device secret
    ///   alone, which is enough for a vault with a master-scope device keyslot such as
    ///   ``Vault/standard(directory:configuration:)``.
    /// - Throws: ``VaultFormatError`` `wrongCredential`, also when the credentials open only a
    ///   base-scope keyslot; ``VaultIOError/Code/conflict``
    ///   when the path holds a different vault; I/O errors.
    public func unlock(with credentials: Credentials? = nil) throws {
        var credentials = credentials ?? Credentials(deviceSecret: deviceSecret)
        // Device-bound classes still need this machine's secret once unlocked: keep it for the
        // keys, but only after the offered credential opened a slot on its own (below).
        let offered = credentials
        if credentials.deviceSecret == nil { credentials.deviceSecret = deviceSecret }
        // The offered credential must open a master-scope slot by itself; the held device
        // secret is only mixed in for the ThisDeviceOnly class keys.
        let reader = try VaultFileReader(path: location.path)
        let check = try reader.open(with: offered)
        guard check.keys.hasMasterKey else {
            throw VaultFormatError(.wrongCredential, "wrong password or key file: no master-scope keyslot opened")
        }
        var snapshot = check
        if offered.deviceSecret == nil, let held = credentials.deviceSecret {
            snapshot = try VaultSnapshot.open(
                headerBytes: check.headerBytes,
                fileLength: reader.fileLength,
                source: reader,
                keys: KeyHierarchy.keys(from: check.keys, deviceSecret: held, vaultID: check.header.vaultID),
                openedKeyslot: check.openedKeyslot
            )
        }
        guard snapshot.header.vaultID == vaultID else {
            throw VaultIOError(
                .conflict,
                operation: "unlock",
                path: location.path,
                reason: "the file now holds a different vault"
            )
        }
        // A base-scope slot (the device slot of a password vault) must not count as unlocking.
        keyState.withLock { state in
            state.keys = snapshot.keys
            state.openedKeyslot = snapshot.openedKeyslot
            state.isLocked = false
            state.lastUse = .now
        }
    }

    // MARK: - Internals

    /// The keys to use now, after applying the idle timeout; marks the vault as used.
    func useKeys() -> (keys: VaultKeys, slot: Int) {
        checkIdle()
        let result = keyState.withLock { state in
            state.lastUse = .now
            return (state.keys, state.openedKeyslot)
        }
        scheduleIdleCheck()
        return result
    }

    /// Runs `body`, turning a missing class key of a locked vault into ``VaultIOError/Code/locked``.
    func translatingLocked<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as VaultFormatError where error.code == .keyUnavailable {
            // Locked, or opened by a base-scope keyslot: either way the class key is not held
            // and only an unlock with a password or key file brings it (L-PC-2).
            throw VaultIOError(
                .locked,
                operation: "read",
                path: location.path,
                reason: "the vault is locked for this item's class; unlock it with a password or key file"
            )
        }
    }

    /// Locks the vault when it has been idle for ``VaultConfiguration/idleTimeout``.
    func checkIdle() {
        guard let timeout = configuration.idleTimeout else { return }
        // Test and lock in one critical section, so that an unlock in between is never undone.
        keyState.withLock { state in
            guard !state.isLocked, state.lastUse.duration(to: .now) >= timeout else { return }
            state.keys = state.keys.locked(dropping: Self.lockedClasses)
            state.isLocked = true
        }
    }

    /// Queues one background check, so that an idle vault wipes its keys even when nobody calls it.
    private func scheduleIdleCheck() {
        guard let timeout = configuration.idleTimeout else { return }
        let first = keyState.withLock { state in
            defer { state.idleCheckScheduled = true }
            return !state.idleCheckScheduled
        }
        guard first else { return }
        Self.idleQueue.asyncAfter(deadline: .now() + Self.interval(timeout)) { [weak self] in
            self?.idleCheckFired(timeout)
        }
    }

    private func idleCheckFired(_ timeout: Duration) {
        checkIdle()
        let remaining = keyState.withLock { state -> Duration? in
            guard !state.isLocked else {
                state.idleCheckScheduled = false
                return nil
            }
            return timeout - state.lastUse.duration(to: .now)
        }
        guard let remaining else { return }
        Self.idleQueue.asyncAfter(deadline: .now() + Self.interval(max(remaining, .milliseconds(1)))) {
            [weak self] in self?.idleCheckFired(timeout)
        }
    }

    private static let idleQueue = DispatchQueue(label: "vault.idle-timeout")

    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        DispatchTimeInterval(saturating: duration)
    }
}

extension DispatchTimeInterval {
    /// `duration` in nanoseconds; `.never` for a duration too long for them (a timeout of
    /// centuries means "practically never", not a trap).
    init(saturating duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int.max / 1_000_000_000) - 1 else {
            self = .never
            return
        }
        self = .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
