// vault: VaultIO errors.

/// An error from reading, locking or writing a vault file.
///
/// A system-call failure carries the step that failed (``operation``, for
/// example `"fsync temporary file"`, `"rename"` or `"fsync directory"`), the
/// ``errno`` and the ``path``. Only ``code`` takes part in `==`, so tests can
/// write `#expect(throws: VaultIOError(.lockTimeout))`. No field ever holds a
/// secret, a password or an item attribute.
///
/// Errors about the vault's bytes or credentials are ``VaultFormatError``s and
/// pass through VaultIO unchanged.
public struct VaultIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A kind of failure. New codes may be added in minor releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code.
        public let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A system call failed; see ``VaultIOError/operation`` and ``VaultIOError/errno``.
        public static let system = Code("system")
        /// Another writer held the write lock for longer than the configured timeout.
        public static let lockTimeout = Code("lockTimeout")
        /// The vault changed under the caller: an item's version did not match the
        /// expected one, or the path now holds a different vault.
        public static let conflict = Code("conflict")
        /// ``Vault/create(at:credentials:keyslots:configuration:now:)`` found a file at the path.
        public static let alreadyExists = Code("alreadyExists")
        /// The path cannot name a vault (empty, a directory, or ending in `/`).
        public static let invalidPath = Code("invalidPath")
        /// The device-secret file is not exactly 32 bytes.
        public static let invalidDeviceSecret = Code("invalidDeviceSecret")
        /// The identity file is not a private regular file holding one `VAULT-IDENTITY-1:` line.
        public static let invalidIdentity = Code("invalidIdentity")
        /// The vault is locked (``Vault/lock()`` or the idle timeout), or was opened with a
        /// keyslot that does not reach the item's protection class: unlock it with a
        /// password or key file. Reads of `whenUnlocked` items throw this; they never return `nil`.
        public static let locked = Code("locked")
        /// The keys this ``Vault`` holds no longer open the file (it was re-keyed, or its header
        /// was altered) and it holds no credential that does: open it again with credentials.
        public static let credentialsRequired = Code("credentialsRequired")
        /// The protection class cannot be used in this vault: `whenPasscodeSetThisDeviceOnly`
        /// needs a password keyslot.
        public static let protectionUnavailable = Code("protectionUnavailable")
        /// The file is older than a generation of this vault seen before, or differs from it at the
        /// same generation: a copy put back by a sync tool or a backup restore. See
        /// ``VaultIOError/rollback`` and ``RollbackPolicy``.
        public static let rolledBack = Code("rolledBack")
        /// The rollback state file of this vault cannot be used (not a state file, wrong owner or mode).
        public static let rollbackStateInvalid = Code("rollbackStateInvalid")
        /// A rekey would lose something it was not allowed to drop: a keyslot that no credential
        /// given opens, or another device's `…ThisDeviceOnly` items. The reason lists them.
        public static let rekeyRefused = Code("rekeyRefused")
        /// `<vault>.lock` is not a regular file owned by this user (or the vault's owner) with no
        /// group or other permissions, so another user could hold it and block every write.
        public static let untrustedLockFile = Code("untrustedLockFile")
        /// ``Vault/standard(directory:configuration:)`` was called for a path this process already
        /// opened with a different ``VaultConfiguration``; the shared instance keeps the first one.
        public static let configurationConflict = Code("configurationConflict")
        /// A write was started inside a write to the same vault on the same thread (a `set` inside
        /// an `update` transform or a ``Vault/write(_:)-8yjd9`` body): it could only wait for itself.
        /// Writes are not reentrant; make the change inside the outer write's transaction.
        public static let reentrantWrite = Code("reentrantWrite")
        /// The vault agent refused a request (such as a limited recipient's keys, which it does not
        /// hold) or answered in a way this version does not understand; ``reason`` says which.
        public static let agentRefused = Code("agentRefused")
        /// An agent started by ``VaultAgent/startInBackground(command:)`` did not come to answer:
        /// its program could not be started (``errno`` says why), exited, or did not answer within
        /// 5 seconds. ``reason`` is the sentence that says which.
        public static let agentNotStarted = Code("agentNotStarted")
        /// A write through a vault opened with ``VaultConfiguration/readOnly``.
        public static let readOnly = Code("readOnly")
        /// No item matches a lookup (``VaultSnapshot/item(matching:includeSecret:)``, a reference).
        /// ``reason`` says when items the keys cannot read might have matched; ``accessGroup``
        /// names the keyed group whose item matched when the lookup named no group.
        public static let itemNotFound = Code("itemNotFound")
        /// Several different items match a lookup that must find one; ``reason`` counts them.
        public static let ambiguousItem = Code("ambiguousItem")
        /// The item a lookup names exists but is `…ThisDeviceOnly`, and the vault was opened
        /// without this machine's device secret.
        public static let deviceSecretRequired = Code("deviceSecretRequired")
        /// The item a reference names was found with another protection class than the one the
        /// reference expects (`accessibility=`): it was changed, possibly by a holder of the base key alone.
        public static let accessibilityMismatch = Code("accessibilityMismatch")
        /// An input holds more bytes than the caller's limit (``SecretInput``); ``reason`` gives the limit.
        public static let tooLarge = Code("tooLarge")
        /// The vault has no keyslot of the kind or at the index asked for; ``reason`` says which.
        public static let keyslotNotFound = Code("keyslotNotFound")
        /// A credential or other input the caller named cannot be used as given: a variable that
        /// is not set, an empty password, an input larger than its limit, no terminal to ask on,
        /// a device-secret or identity file that is refused (``CredentialSources``). ``reason``
        /// is a sentence that names it, never its content.
        public static let invalidInput = Code("invalidInput")
        /// A file or stream holding a credential or other input cannot be read; ``reason`` names it
        /// and the system's reason (``CredentialSources``, ``SecretInput/read(_:at:showingPath:limit:why:)``).
        public static let unreadableInput = Code("unreadableInput")
        /// A reference (``ItemReference``) is not in the grammar of Spec/cli.md, "References".
        public static let invalidReference = Code("invalidReference")
        /// The TPM cannot be used: the TPM2 libraries are not installed, or the TCTI
        /// (``TPM2Device``) reaches no TPM (Spec/tpm2.md, L-TPM-3).
        public static let tpm2Unavailable = Code("tpm2Unavailable")
        /// The TPM refused the PIN of a TPM2 keyslot, and counted a failure.
        public static let tpm2WrongPIN = Code("tpm2WrongPIN")
        /// The TPM refuses every PIN until its dictionary-attack lockout interval has passed.
        public static let tpm2LockedOut = Code("tpm2LockedOut")
        /// A PCR the sealed object is bound to changed since it was sealed.
        public static let tpm2PolicyMismatch = Code("tpm2PolicyMismatch")
        /// This TPM cannot load the sealed object: another machine's TPM sealed it, or this one was cleared.
        public static let tpm2SealedElsewhere = Code("tpm2SealedElsewhere")
        /// A TPM2 keyslot needs a PIN, and neither a PIN nor a way to ask for one was given.
        public static let tpm2PINRequired = Code("tpm2PINRequired")
        /// The TPM was the only credential offered, and the vault has no TPM2 keyslot.
        public static let noTPM2Keyslot = Code("noTPM2Keyslot")
        /// The TPM refused for another reason; ``reason`` holds its response code.
        public static let tpm2Refused = Code("tpm2Refused")
    }

    /// What went wrong.
    public let code: Code
    /// The step that failed, such as `"open"`, `"fsync temporary file"` or `"lock"`; empty when none applies.
    public let operation: String
    /// The error number, for ``Code/system`` (and ``Code/alreadyExists``).
    public let errno: Errno?
    /// The file the step worked on.
    public let path: String
    /// A sentence for a person, when the code and operation are not enough.
    public let reason: String
    /// For ``Code/rolledBack``: the generation seen before and the one found.
    public let rollback: RollbackFinding?
    /// For ``Code/itemNotFound``: the access group, with its own key domain, of an item that
    /// matched a lookup naming no group (it is never taken for the default group's item).
    public let accessGroup: String?

    /// Creates an error.
    public init(
        _ code: Code,
        operation: String = "",
        errno: Errno? = nil,
        path: String = "",
        reason: String = "",
        rollback: RollbackFinding? = nil,
        accessGroup: String? = nil
    ) {
        self.code = code
        self.operation = operation
        self.errno = errno
        self.path = path
        self.reason = reason
        self.rollback = rollback
        self.accessGroup = accessGroup
    }

    /// A failed system call.
    static func system(_ operation: String, _ errno: Errno, path: String) -> VaultIOError {
        VaultIOError(.system, operation: operation, errno: errno, path: path)
    }

    public static func == (lhs: VaultIOError, rhs: VaultIOError) -> Bool { lhs.code == rhs.code }

    /// For example: `fsync temporary file '/home/a/.vault.tmp-0a1b…': Input/output error (errno 5)`.
    public var description: String {
        var text = operation.isEmpty ? code.name : operation
        if !path.isEmpty { text += " '\(path)'" }
        if let errno { text += ": \(errno) (errno \(errno.rawValue))" }
        if !reason.isEmpty { text += ": \(reason)" }
        return text
    }
}

/// Runs one step of a file operation, turning its ``Errno`` into a ``VaultIOError`` that names the step.
///
/// - Parameters:
///   - operation: The step's name, such as `"fsync directory"`.
///   - path: The file the step works on.
///   - body: The step.
func step<T>(_ operation: String, _ path: String, _ body: () throws(Errno) -> T) throws(VaultIOError) -> T {
    do {
        return try body()
    } catch {
        throw VaultIOError.system(operation, error, path: path)
    }
}
