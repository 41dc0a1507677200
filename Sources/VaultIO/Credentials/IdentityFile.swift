// vault: identity files: a recipient's X25519 private key on disk (format 1.2).

import Glibc
public import VaultFormat

/// Reads and writes identity files, the private half of a recipient (Spec/format-v1.2.md, R12-TXT-2).
///
/// ```swift
/// let identity = try IdentityFile.generate(at: "/home/me/.config/vault/identity")
/// print(identity.recipient)          // VAULT-RECIPIENT-1:…, to share
/// let again = try IdentityFile.load(at: "/home/me/.config/vault/identity")
/// let vault = try Vault(path: "team.vault", credentials: .identity(again))
/// ```
public enum IdentityFile {
    /// The largest identity file read; a real one is under 300 bytes.
    static let maximumByteCount = 4096

    /// Creates a new random identity and writes it at `path`.
    ///
    /// The file is written by ``DurableFile/create(at:contents:mode:)``: created exclusively (an
    /// existing file or symbolic link is never overwritten or followed) with mode `0600`, and
    /// `fsync`ed with its directory. Folders of `path` that do not exist are created with mode
    /// `0700`; existing ones are left as they are.
    ///
    /// - Returns: The identity; its ``RecipientIdentity/recipient`` is the public key to share.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when something is at `path`; a ``VaultIOError``
    ///   naming the failed step otherwise.
    public static func generate(at path: String) throws -> RecipientIdentity {
        let identity = RecipientIdentity.generate()
        try write(identity.fileContents, at: path)
        return identity
    }

    /// Reads the identity file at `path`.
    ///
    /// - Throws: ``VaultIOError/Code/invalidIdentity`` when the file is not a regular file owned by
    ///   this user with no permission for group or others, or does not hold one identity line;
    ///   a ``VaultIOError`` (`"open"`, `"fstat"`, `"read"`) when it cannot be read.
    public static func load(at path: String) throws -> RecipientIdentity {
        try load(at: path, passphrase: { nil })
    }

    /// Reads the identity file at `path`, whose identity line may be sealed under a passphrase
    /// (Spec/format-v1.2.md R12-TXT-3): `passphrase` is called only for a sealed one.
    ///
    /// - Parameters:
    ///   - path: The identity file.
    ///   - passphrase: Gives the passphrase (a prompt, a file), or `nil` when there is none.
    /// - Throws: As ``load(at:)``; ``VaultIOError/Code/invalidIdentity`` for a sealed file and no
    ///   passphrase; ``VaultFormatError`` `wrongCredential` for a wrong passphrase; `passphrase`'s error.
    public static func load(at path: String, passphrase: () throws -> SecretBytes?) throws -> RecipientIdentity {
        try OwnerOnlyFile.withContents(
            of: path,
            maximumByteCount: maximumByteCount,
            failing: .invalidIdentity,
            what: "an identity file"
        ) { bytes in try identity(in: bytes, at: path, passphrase: passphrase) }
    }

    /// The identity in the bytes of the file at `path`, opened with `passphrase` when sealed.
    private static func identity(in bytes: [UInt8], at path: String, passphrase: () throws -> SecretBytes?) throws
        -> RecipientIdentity
    {
        guard bytes.count <= maximumByteCount else {
            throw VaultIOError(.invalidIdentity, operation: "read", path: path, reason: "the file is too large")
        }
        let given = RecipientIdentity.isSealed(fileContents: bytes) ? try passphrase() : nil
        let parsed = Result { () throws(VaultFormatError) in
            try RecipientIdentity(fileContents: bytes, passphrase: given)
        }
        switch parsed {
        case .success(let identity): return identity
        case .failure(let error) where error.code == .wrongCredential || error.code == .cryptoFailure:
            throw error
        case .failure(let error):
            throw VaultIOError(.invalidIdentity, operation: "read", path: path, reason: error.reason)
        }
    }

    /// Creates an identity file at `path` whose identity line is sealed under `passphrase`
    /// (R12-TXT-3), as ``generate(at:)`` creates a plain one.
    ///
    /// - Throws: As ``generate(at:)``; ``VaultFormatError`` `invalidParameter` for KDF parameters
    ///   below the minimum.
    public static func generate(
        at path: String,
        passphrase: SecretBytes,
        kdf: KDFParameters = .interactive
    ) throws -> RecipientIdentity {
        let identity = RecipientIdentity.generate()
        try write(try identity.sealedFileContents(passphrase: passphrase, kdf: kdf), at: path)
        return identity
    }

    /// Writes a new identity file holding `contents`, plain or sealed. Missing folders on the way
    /// (`~/.config/vault` on a new machine) are made private (0700).
    private static func write(_ contents: SecretBytes, at path: String) throws {
        var bytes = contents.copyBytes()
        defer { wipe(&bytes) }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try DeviceSecretFile.makeDirectories(String(path[..<slash]))
        }
        try OwnerOnlyFile.create(
            at: path,
            bytes,
            operation: "create identity file",
            reason: "an identity file is never overwritten"
        )
    }

}
