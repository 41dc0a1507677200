// vault: a vault opened to change its keyslots, with one key derivation per credential.

public import VaultFormat

/// A vault opened with credentials for a command that changes its keyslots: a password change,
/// a keyslot removal, a migration.
///
/// Opening runs the key derivation of the keyslot that opens (as ``Vault/init(path:credentials:configuration:)``
/// does) and keeps that keyslot's key-encryption key for as long as the session lives. The
/// session's writes then rewrap or recognize that keyslot without deriving its key again, so a
/// command that checks a credential and then changes keyslots runs the credential's key
/// derivation once, not once per step. Keep a session only for the command that needs it; the
/// ``vault`` it opened does not keep the key-encryption key.
///
/// ```swift
/// let session = try CredentialSession(path: path, credentials: .password(current))
/// try session.write { txn in
///     try txn.removeKeyslot(at: 2, rekey: RekeyOptions())  // the opened slot is rewrapped, no KDF
/// }
/// ```
public final class CredentialSession {
    /// The vault, open with the credentials' keys.
    public let vault: Vault
    /// The index of the keyslot that opened the vault, in the generation read at open.
    public let openedKeyslot: Int
    /// The keyslot that opened, as read at open, and its key-encryption key; `nil` when a
    /// recipient stanza opened the vault (format 1.2).
    let opened: Keyslot?
    let kek: KeyEncryptionKey?

    /// Opens an existing vault and checks the credentials (one key derivation).
    ///
    /// - Parameters:
    ///   - path: The vault file; a symbolic link is resolved once, here.
    ///   - credentials: What unlocks a keyslot.
    ///   - configuration: As for ``Vault/init(path:credentials:configuration:)``.
    /// - Throws: As ``Vault/init(path:credentials:configuration:)``.
    public init(
        path: String,
        credentials: Credentials,
        configuration: VaultConfiguration = VaultConfiguration()
    ) throws {
        let (location, credentials) = try Vault.resolvingExisting(path, credentials, configuration)
        let reader = try VaultFileReader(path: location.path)
        let headerBytes = try reader.headerBytes()
        let header = try VaultHeader.decode(headerBytes, fileLength: reader.fileLength)
        let unlocked = try KeyHierarchy.unlockKeepingKEK(
            header,
            with: try TPM2Keyslots.unsealing(credentials, header: header)
        )
        // Checks the header MAC with the keys, as an open with credentials does (R-HDR-6).
        let snapshot = try reader.open(keys: unlocked.keys, openedKeyslot: unlocked.slot)
        vault = try Vault(location: location, screening: snapshot, configuration: configuration)
        openedKeyslot = unlocked.slot
        opened = header.keyslots.indices.contains(unlocked.slot) ? header.keyslots[unlocked.slot] : nil
        kek = unlocked.kek
    }

    /// Runs ``Vault/write(_:)-8yjd9`` with the opened keyslot's key-encryption key known to the
    /// transaction: a rekey rewraps that keyslot without deriving its key again.
    ///
    /// - Parameter body: A closure that edits the vault's keyslots and items.
    /// - Returns: What `body` returns.
    /// - Throws: As ``Vault/write(_:)-8yjd9``.
    @discardableResult
    public func write<T>(_ body: (inout VaultTransaction) throws -> T) throws -> T {
        try vault.write { txn in
            if let opened, let kek, txn.keyslots.contains(opened) { txn.newSlotKEKs[opened] = kek }
            return try body(&txn)
        }
    }

    /// The position of the keyslot that opened the vault among `keyslots` (for example a
    /// transaction's), or `nil` when another writer has replaced or removed it since.
    public func openedKeyslot(in keyslots: [Keyslot]) -> Int? {
        opened.flatMap { keyslots.firstIndex(of: $0) }
    }
}
