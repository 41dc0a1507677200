// vault: how a Vault creates keyslots, waits for writers and finds the device secret.

public import VaultFormat

/// Settings for opening or creating a ``Vault``.
///
/// ```swift
/// var configuration = VaultConfiguration()
/// configuration.kdf = .moderate
/// configuration.lockTimeout = .seconds(10)
/// let vault = try Vault.create(at: path, credentials: .password(passphrase), configuration: configuration)
/// ```
public struct VaultConfiguration: Sendable, Equatable {
    /// Argon2id cost of the password keyslots a vault creates.
    ///
    /// Checked against the format's floor for new keyslots (R-KS-4): parameters
    /// weaker than 19,456 KiB and 2 passes are refused with
    /// ``VaultFormatError`` `kdfRejected`. Opening a vault uses the parameters
    /// stored in its keyslots, whatever this says.
    public var kdf: KDFParameters

    /// How long a writer waits for other writers (threads or processes) before
    /// failing with ``VaultIOError/Code/lockTimeout``.
    public var lockTimeout: Duration

    /// Where this machine's 32-byte device secret is kept, if anywhere.
    ///
    /// When set, and the ``Credentials`` passed to ``Vault`` carry no device
    /// secret, the file is read when the vault is opened or created and its
    /// secret added to the credentials. It unlocks device keyslots and the
    /// device-bound protection classes.
    public var deviceSecretPath: String?

    /// Whether a missing file at ``deviceSecretPath`` is created (32 random bytes, mode `0600`).
    ///
    /// ``DeviceSecretCreation/never`` by default: a missing file is an error. The
    /// standard vault (``Vault/standard(directory:configuration:)``) creates it.
    public var deviceSecretCreation: DeviceSecretCreation = .never

    /// The TPM that unseals a TPM-sealed device secret at ``deviceSecretPath``
    /// (Spec/tpm2.md, L-TPM-7); ``TPM2Device/default`` when `nil`.
    public var tpm2Device: TPM2Device? = nil

    /// Locks the vault (``Vault/lock()``) after this long without a read or write; `nil` never does.
    ///
    /// Checked before every use and by a background timer, so an idle vault wipes
    /// its `whenUnlocked` keys even when nothing calls it.
    public var idleTimeout: Duration? = nil

    /// Where the generations seen of each vault are kept, to notice an older copy put back.
    ///
    /// ``RollbackStateLocation/standard`` (`$XDG_STATE_HOME/vault/seen`, else
    /// `~/.local/state/vault/seen`) by default; ``RollbackStateLocation/disabled`` turns the check off.
    ///
    /// Spec: Spec/rollback.md (L-RB-1 to L-RB-7).
    public var rollbackState: RollbackStateLocation = .standard

    /// What opening, reading and writing do with a file older than one seen before.
    ///
    /// ``RollbackPolicy/refuse`` by default: they throw ``VaultIOError/Code/rolledBack``.
    public var rollbackPolicy: RollbackPolicy = .refuse

    /// Opens for reading only, and never creates or changes a file: every write of the vault (and
    /// so every Keychain setter) throws ``VaultIOError/Code/readOnly``; the rollback record is
    /// compared but never created or raised; a missing device-secret file is an error whatever
    /// ``deviceSecretCreation`` says; `Vault.create` refuses.
    /// For a service that only reads its secrets, on a read-only file system or under an
    /// account that must not write (GRDB's `Configuration.readonly`).
    ///
    /// Spec: Spec/library-semantics.md (L-RO-1).
    public var readOnly = false

    /// The format ``Vault/create(at:credentials:keyslots:configuration:now:)`` writes a new vault
    /// in: ``NewVaultFormat/version3`` unless readers older than format 3 must read it.
    public var newVaultFormat: NewVaultFormat = .version3

    /// Whether ``kdf`` must meet the floor for new keyslots. Only tests waive it.
    var kdfFloor: KDFFloor = .enforced

    /// Creates a configuration.
    ///
    /// A password vault that keeps `…ThisDeviceOnly` items needs a device secret; name its file
    /// and whether to create it here, in one call:
    ///
    /// ```swift
    /// let configuration = VaultConfiguration(deviceSecretPath: secretPath, deviceSecretCreation: .ifMissing)
    /// ```
    ///
    /// - Parameters:
    ///   - kdf: Argon2id cost of new password keyslots; ``KDFParameters/default`` (64 MiB, 3 passes).
    ///   - lockTimeout: How long a writer waits for the write lock; 5 seconds.
    ///   - deviceSecretPath: The device-secret file, or `nil`.
    ///   - deviceSecretCreation: Whether a missing device-secret file is created; ``DeviceSecretCreation/never``.
    public init(
        kdf: KDFParameters = .default,
        lockTimeout: Duration = .seconds(5),
        deviceSecretPath: String? = nil,
        deviceSecretCreation: DeviceSecretCreation = .never
    ) {
        self.kdf = kdf
        self.lockTimeout = lockTimeout
        self.deviceSecretPath = deviceSecretPath
        self.deviceSecretCreation = deviceSecretCreation
    }

    /// A configuration for unit tests, apps' own included: new password keyslots use
    /// Argon2id parameters far below the floor for real vaults (64 KiB, 1 pass, 1 lane
    /// by default), so creating and opening a vault takes microseconds.
    ///
    /// Never use it for a real vault: anyone with the file can try passwords at millions
    /// per second. Two guards keep it in tests:
    /// - a ``Vault`` with this configuration cannot be created or opened in the standard
    ///   vault's directory (`$XDG_DATA_HOME/vault`, where ``Vault/standard(directory:configuration:)``
    ///   and ``Keychain/standard`` keep the user's real items): that fails with
    ///   ``VaultIOError/Code/invalidPath``;
    /// - calling this outside a test process writes a warning to stderr, once per process.
    ///   A process counts as a test process when Swift Testing or XCTest is loaded, the
    ///   executable is a `.xctest` bundle, or `VAULT_TESTING=1` is set.
    ///
    /// The rollback check is off unless `rollbackState` names a (temporary) directory, so that
    /// tests never write to the real home directory.
    ///
    /// ```swift
    /// let vault = try Vault.create(
    ///     at: temporaryDirectory + "/test.vault",
    ///     credentials: .password("test"),
    ///     configuration: .insecureForTesting()
    /// )
    /// ```
    ///
    /// Spec: Spec/library-semantics.md, "Testing configuration" (L-TEST-1, L-TEST-2).
    public static func insecureForTesting(
        kdf: KDFParameters = KDFParameters(memoryKiB: 64, iterations: 1, lanes: 1),
        lockTimeout: Duration = .seconds(10),
        deviceSecretPath: String? = nil,
        deviceSecretCreation: DeviceSecretCreation = .never,
        rollbackState: RollbackStateLocation = .disabled
    ) -> VaultConfiguration {
        TestProcess.warnIfOutsideTests()
        var configuration = VaultConfiguration(
            kdf: kdf,
            lockTimeout: lockTimeout,
            deviceSecretPath: deviceSecretPath,
            deviceSecretCreation: deviceSecretCreation
        )
        configuration.kdfFloor = .waivedForTesting
        configuration.rollbackState = rollbackState
        return configuration
    }
}

/// What to do when the device-secret file does not exist.
public enum DeviceSecretCreation: Sendable, Hashable {
    /// Fail with the `open` error (`ENOENT`).
    case never
    /// Create it with ``DeviceSecretFile/loadOrCreate(at:tpm2:)``.
    case ifMissing
}

/// Whether new keyslots must meet the KDF floor (R-KS-4).
enum KDFFloor: Sendable {
    /// Production: ``KDFParameters/validateForWriting()``.
    case enforced
    /// Tests: only the reader ceilings of ``KDFParameters/validateForReading()``.
    case waivedForTesting
}

/// The format of a new vault file.
public enum NewVaultFormat: Hashable, Sendable {
    /// Format 3 (Spec/format-v3.md): commits that append what changed, item histories that let a
    /// merge tell an older copy from a concurrent edit, and per-scope integrity.
    case version3
    /// Format 1.1 (Spec/format-v1.1.md), for readers that predate format 3; `vaulttool migrate`
    /// upgrades it later.
    case version1_1
}
