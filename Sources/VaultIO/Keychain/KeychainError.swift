// vault: the one error type of the Keychain API, and how VaultFormat and VaultIO errors map to it.

public import FoundationEssentials
import VaultFormat

/// What went wrong in a ``Keychain`` call, in cases a caller can act on.
///
/// A missing item is not an error: reads return `nil`. ``itemNotFound`` appears
/// only where no optional can say it (``Keychain/require(_:)``). A locked or
/// damaged vault always throws; it never reads as `nil`.
///
/// ```swift
/// do {
///     token = try keychain.get("token")
/// } catch .locked {
///     try keychain.vault.unlock(with: .password(askUser()))
/// }
/// ```
public enum KeychainError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The item does not exist (only where the API cannot return `nil`).
    case itemNotFound
    /// The item's protection class is locked (``Vault/lock()``, the idle timeout, or a
    /// vault opened by a base-scope keyslot); unlock with a password or key file.
    case locked
    /// No keyslot opens with the credentials given.
    case wrongPassword
    /// The keys the ``Vault`` holds no longer open the file: another writer rekeyed it (a new
    /// master key: `vaulttool rekey`, another `Vault`'s ``VaultTransaction/rekey(_:)``), replaced
    /// it, or its header was altered. Retrying does not help: unlock with the credential
    /// (``Vault/unlock(with:)``) or open the vault again (L-KEY-3, L-ERR-3).
    case credentialsRequired
    /// The file is damaged or not a vault; `what` names the part (header, index, record…). A
    /// damaged item's record is `"record of item <ID>"`, its persistent reference in hex (L-KC-17).
    case corrupt(what: String)
    /// The file was written by a newer, incompatible version of vault.
    case unsupportedVersion
    /// The vault changed under the call (expected version, migration target taken, another vault at the path).
    case conflict(String)
    /// The file is an older copy than one this account saw (a sync tool or a restore put it back),
    /// and ``VaultConfiguration/rollbackPolicy`` refuses it: the finding says what was seen and
    /// what was found (Spec/rollback.md, L-RB-4).
    case rolledBack(RollbackFinding)
    /// The vault's write lock stayed busy longer than ``VaultConfiguration/lockTimeout``: other
    /// writers held it, or were ahead of this one in the queue (L-LK-4).
    case lockTimeout
    /// A system call failed: the step (`"fsync directory"`) and its error number.
    case io(step: String, errno: Errno?)
    /// The key is the empty string.
    case emptyKey
    /// The value is an empty string or empty data and the keychain refuses empty values
    /// (``EmptyValuePolicy/refuse``, the default), as Valet does.
    case emptyValue
    /// The request cannot be stored: wrong combination of settings, a limit, a bad path.
    case invalidParameter(String)
    /// The stored value is not of the requested type.
    case conversion(expected: String, stored: String)
    /// The item belongs to another device (a `…ThisDeviceOnly` item written with another device secret).
    case otherDevice
    /// A `…ThisDeviceOnly` item needs this machine's device secret, and the vault has none:
    /// set ``VaultConfiguration/deviceSecretPath`` (for example to ``DeviceSecretFile/defaultPath``
    /// with ``DeviceSecretCreation/ifMissing``) or use the standard vault.
    case deviceSecretRequired

    /// Maps any error from VaultFormat, VaultIO or value coding to a case.
    public init(_ error: any Error) {
        switch error {
        case let error as KeychainError: self = error
        case let error as VaultIOError: self = Self(io: error)
        case let error as VaultFormatError: self = Self(format: error)
        case let damage as ItemDamage: self = .corrupt(what: "record of item \(damage.entry.itemID)")  // L-KC-17
        default: self = .invalidParameter(String(describing: error))
        }
    }

    private init(io error: VaultIOError) {
        switch error.code {
        case .lockTimeout: self = .lockTimeout
        case .rolledBack: self = error.rollback.map(Self.rolledBack) ?? .conflict(error.reason)
        case .conflict: self = .conflict(error.reason)
        case .locked: self = .locked
        case .credentialsRequired: self = .credentialsRequired
        case .invalidPath, .protectionUnavailable, .reentrantWrite, .readOnly:
            self = .invalidParameter(error.description)
        // A device-secret file of the wrong mode or size is this machine's configuration, not
        // damage to the vault.
        case .invalidDeviceSecret: self = .invalidParameter(error.description)
        // So is a lock file someone else could hold: the message names the file and the fix.
        case .untrustedLockFile: self = .invalidParameter(error.description)
        case .rollbackStateInvalid: self = .corrupt(what: "rollback state file")
        default: self = .io(step: error.operation, errno: error.errno)
        }
    }

    private init(format error: VaultFormatError) {
        switch error.code {
        case .wrongCredential: self = .wrongPassword
        case .keyUnavailable: self = .locked
        case .foreignDevice: self = .otherDevice
        case .deviceSecretRequired: self = .deviceSecretRequired
        case .unsupportedVersion, .unsupportedFeature: self = .unsupportedVersion
        case .invalidParameter, .limit: self = .invalidParameter(error.reason)
        case .notAVault: self = .corrupt(what: "file (not a vault)")
        case .truncated, .structure, .headerCorrupt, .headerAuthentication: self = .corrupt(what: "header")
        case .kdfRejected: self = .corrupt(what: "keyslot KDF parameters")
        case .indexCorrupt: self = .corrupt(what: "index")
        case .recordCorrupt: self = .corrupt(what: "record")
        default: self = .corrupt(what: error.description)
        }
    }

    /// ``description``, so that `localizedDescription` says what happened instead of
    /// "The operation could not be completed".
    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .itemNotFound: "the item was not found"
        case .locked: "the vault is locked; unlock it with a password or key file"
        case .wrongPassword: "wrong password or key file"
        case .credentialsRequired:
            "the keys held no longer open the vault: another writer rekeyed or replaced it, or its header was "
                + "altered; unlock it again with the password or key file (Vault.unlock(with:)) or open it again"
        case .corrupt(let what): "the vault is damaged: \(what)"
        case .unsupportedVersion: "the vault was written by a newer version of vault"
        case .conflict(let reason): "the vault changed: \(reason)"
        case .rolledBack(let finding):
            "\(finding): an older copy of the vault was put back; restore the newer file, or accept this "
                + "one on purpose (RollbackPolicy.accept)"
        case .lockTimeout:
            "the vault's write lock stayed busy past the lock timeout: other writers held it or were ahead in "
                + "the queue; try again, or raise VaultConfiguration.lockTimeout"
        case .io(let step, let errno): "\(step) failed" + (errno.map { ": \($0)" } ?? "")
        case .emptyKey: "the key is empty"
        case .emptyValue: "the value is empty; use emptyValues(.store) to store empty values"
        case .invalidParameter(let reason): "invalid parameter: \(reason)"
        case .conversion(let expected, let stored): "the stored value (\(stored)) is not a \(expected)"
        case .otherDevice: "the item belongs to another device"
        case .deviceSecretRequired:
            "…ThisDeviceOnly items need this machine's device secret; set VaultConfiguration.deviceSecretPath or use the standard vault"
        }
    }
}

/// Runs `body`, mapping any error it throws to a ``KeychainError``.
func keychainCall<T>(_ body: () throws -> T) throws(KeychainError) -> T {
    do {
        return try body()
    } catch {
        throw KeychainError(error)
    }
}
