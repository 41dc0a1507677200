// vault: one error type for app code, with structured fields instead of prose.

public import VaultFormat

/// Whatever a ``Vault``, a ``Keychain`` or a VaultFormat call threw, as one type with
/// structured fields.
///
/// The library throws three types: ``VaultFormatError`` (the file's bytes and credentials),
/// ``VaultIOError`` (files, locks, rollback) and ``KeychainError`` (every `Keychain` call).
/// App code that wants one type catches any of them as a `VaultError`, or wraps a block in
/// ``catching(_:)`` for a typed throw:
///
/// ```swift
/// do throws(VaultError) {
///     try VaultError.catching { try vault.write { try $0.set(draft) } }
/// } catch {
///     switch error.kind {
///     case .unsupportedVersion: print("needs format \(error.formatVersion!)")
///     case .locked: try vault.unlock(with: .password(passphrase))
///     default: throw error
///     }
/// }
/// ```
///
/// ``kind`` is the ``KeychainError`` case the error maps to (the same mapping `Keychain`
/// uses), so one `switch` covers every source. The other fields are those of the original
/// error, `nil` when it had none: no field needs parsing ``description``.
///
/// Spec: Spec/library-semantics.md, "Errors for app code" (L-ERR-1, L-ERR-2).
public struct VaultError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as the ``KeychainError`` case it maps to.
    public let kind: KeychainError
    /// The ``VaultFormatError`` code, when the error came from VaultFormat.
    public let formatCode: VaultFormatError.Code?
    /// The ``VaultIOError`` code, when the error came from VaultIO's file layer.
    public let ioCode: VaultIOError.Code?
    /// For an unsupported version: the format version the file declares.
    public let formatVersion: FormatVersion?
    /// The file a VaultIO step worked on.
    public let path: String?
    /// The step that failed, such as `"open"` or `"rename"`.
    public let operation: String?
    /// The error number of a failed system call.
    public let errno: Errno?
    /// For a rolled-back file: the generation seen before and the one found.
    public let rollback: RollbackFinding?
    /// For a damaged record: the item's ID (its persistent reference), from ``ItemDamage``.
    public let damagedItem: ItemID?
    /// The error as thrown, when it is one of the library's; otherwise ``kind``.
    public let underlying: any Error & Sendable

    /// Classifies `error`; a `VaultError` is returned as it is.
    public init(_ error: any Error) {
        if let error = error as? VaultError {
            self = error
            return
        }
        kind = KeychainError(error)
        let damage = error as? ItemDamage
        let format = (error as? VaultFormatError) ?? damage?.error
        let io = error as? VaultIOError
        formatCode = format?.code
        ioCode = io?.code
        formatVersion = format?.formatVersion
        path = io.flatMap { $0.path.isEmpty ? nil : $0.path }
        // A Keychain call keeps what its case carries: the step and errno of `io`, the finding
        // of `rolledBack` (L-ERR-1).
        var keychainStep: (operation: String, errno: Errno?)?
        var keychainRollback: RollbackFinding?
        switch error as? KeychainError {
        case .io(let step, let number)?: keychainStep = (step, number)
        case .rolledBack(let finding)?: keychainRollback = finding
        default: break
        }
        operation = io.flatMap { $0.operation.isEmpty ? nil : $0.operation } ?? keychainStep?.operation
        errno = io?.errno ?? keychainStep?.errno ?? nil
        rollback = io?.rollback ?? keychainRollback
        damagedItem = damage?.entry.itemID
        underlying = damage ?? format ?? io ?? (error as? KeychainError) ?? kind
    }

    /// Runs `body`, turning whatever it throws into a `VaultError`.
    public static func catching<T>(_ body: () throws -> T) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            throw VaultError(error)
        }
    }

    /// The original error's description (which never holds a secret).
    public var description: String { String(describing: underlying) }
}
