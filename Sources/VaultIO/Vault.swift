// vault: the embeddable API: a vault file opened with credentials.

import Glibc
public import VaultFormat

/// A vault file opened with credentials, shaped like GRDB's `DatabaseQueue`.
///
/// ```swift
/// let vault = try Vault(path: "/home/me/keys.vault", credentials: .password(passphrase))
/// let count = try vault.read { snapshot in snapshot.index.entries.count }
/// try vault.write { txn in try txn.set(draft) }
/// ```
///
/// **Reads** open the newest generation of the file and take no lock: writers
/// never change a file in place, so a reader sees one whole generation.
///
/// **Writes** take the write lock (see ``VaultConfiguration/lockTimeout``),
/// re-read the newest generation from disk, unlock it again with the
/// credentials given at open, run the body, and commit every change at once by
/// writing a new file and renaming it over the old one. A vault may be shared
/// by threads (it is `Sendable`) and by processes.
///
/// The path is resolved once, at open: symbolic links are followed and the
/// vault keeps using the resolved file, so replacing a symlink later does not
/// redirect an open `Vault`.
///
/// Every read and write runs the keyslot's key derivation again (Argon2id for a
/// password), because the credentials, not derived keys, are what `Vault` keeps.
public final class Vault: Sendable {
    /// The resolved path of the vault file.
    public var path: String { location.path }
    /// The vault's random identifier, from the header read at open.
    public let vaultID: [UInt8]
    /// The settings given at open.
    public let configuration: VaultConfiguration

    private let location: VaultPath
    private let credentials: Credentials
    private let lock: WriteLock

    private init(location: VaultPath, vaultID: [UInt8], credentials: Credentials, configuration: VaultConfiguration) {
        self.location = location
        self.vaultID = vaultID
        self.credentials = credentials
        self.configuration = configuration
        lock = WriteLock(target: location)
    }

    // MARK: - Opening and creating

    /// Opens an existing vault and checks the credentials.
    ///
    /// - Parameters:
    ///   - path: The vault file; a symbolic link is resolved once, here.
    ///   - credentials: What unlocks a keyslot. Kept in memory for later reads and writes.
    ///   - configuration: Lock timeout and device-secret file.
    /// - Throws: A ``VaultIOError`` when the file cannot be read; a ``VaultFormatError``
    ///   when it is not a valid vault or no keyslot opens (`wrongCredential`).
    public convenience init(
        path: String, credentials: Credentials, configuration: VaultConfiguration = VaultConfiguration()
    ) throws {
        let location = try VaultPath.resolvingExisting(path)
        let credentials = try Self.addingDeviceSecret(to: credentials, configuration)
        let snapshot = try VaultFileReader(path: location.path).open(with: credentials)
        self.init(
            location: location, vaultID: snapshot.header.vaultID, credentials: credentials,
            configuration: configuration)
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
        let location = try VaultPath.resolvingNew(path)
        let credentials = try addingDeviceSecret(to: credentials, configuration)
        guard keyslots.contains(where: { $0 != .device }) else {
            throw VaultFormatError(.invalidParameter, "a vault needs a password or key-file keyslot for its master key")
        }
        let random = SystemRandom()
        let master: MasterKey = random.key()
        let vaultID = random.bytes(16)
        let slots = try keyslots.map { kind in
            try KeyHierarchy.makeKeyslot(
                kind: kind, wrapping: kind == .device ? KeyHierarchy.baseKey(from: master).secret : master.secret,
                scope: kind == .device ? .baseKey : .masterKey, credentials: credentials, kdf: configuration.kdf,
                vaultID: vaultID, random: random, allowWeak: configuration.kdfFloor == .waivedForTesting)
        }
        let keys = KeyHierarchy.keys(master: master, deviceSecret: credentials.deviceSecret, vaultID: vaultID)
        let bytes = try VaultWriter(vaultID: vaultID, created: now, keyslots: slots, keys: keys).encode(now: now)
        let vault = Vault(location: location, vaultID: vaultID, credentials: credentials, configuration: configuration)
        try vault.lock.withLock(timeout: configuration.lockTimeout) {
            try AtomicWriter(target: location).commit(bytes, .create)
        }
        return vault
    }

    // MARK: - Reading and writing

    /// Opens the newest generation of the vault and passes it to `body`. Takes no lock.
    ///
    /// - Parameter body: Reads from the snapshot, which stays valid (its file open) while it is kept.
    /// - Returns: What `body` returns.
    /// - Throws: A ``VaultIOError`` or ``VaultFormatError`` from opening the file;
    ///   ``VaultIOError/Code/conflict`` when the path now holds a different vault; or `body`'s error.
    public func read<T>(_ body: (VaultSnapshot) throws -> T) throws -> T {
        try body(try openNewest().snapshot)
    }

    /// Writes `body`'s changes to a fresh copy of the vault and swaps it in atomically.
    ///
    /// Changes commit if and only if `body` returns without throwing; otherwise the
    /// original file is left byte-for-byte untouched. A body that changes nothing
    /// does not write the file.
    ///
    /// - Parameter body: A closure that edits the vault's items.
    /// - Returns: The value returned by `body`.
    /// - Throws: ``VaultIOError/Code/lockTimeout``; a ``VaultIOError`` when the copy,
    ///   `fsync` or `rename` fails (the old file stays); ``VaultIOError/Code/conflict``;
    ///   a ``VaultFormatError``; or the error thrown by `body`.
    public func write<T>(_ body: (inout VaultTransaction) throws -> T) throws -> T {
        try lock.withLock(timeout: configuration.lockTimeout) {
            let (reader, snapshot) = try openNewest()
            var transaction = VaultTransaction(writer: try VaultWriter(updating: snapshot), now: Self.currentTime())
            let result = try body(&transaction)
            if transaction.hasChanges {
                let bytes = transaction.writer.encode(now: transaction.now)
                try AtomicWriter(target: location).commit(bytes, .replace(reader.status))
            }
            return result
        }
    }

    /// Opens and unlocks the file now at the vault's path.
    private func openNewest() throws -> (reader: VaultFileReader, snapshot: VaultSnapshot) {
        let reader = try VaultFileReader(path: location.path)
        let snapshot = try reader.open(with: credentials)
        guard snapshot.header.vaultID == vaultID else {
            throw VaultIOError(
                .conflict, operation: "open", path: location.path, reason: "the file now holds a different vault")
        }
        return (reader, snapshot)
    }

    // MARK: - Helpers

    /// The current time in milliseconds since the Unix epoch.
    ///
    /// The corresponding C function is `clock_gettime`.
    public static func currentTime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Adds the device secret from ``VaultConfiguration/deviceSecretPath`` when the credentials have none.
    private static func addingDeviceSecret(
        to credentials: Credentials, _ configuration: VaultConfiguration
    ) throws -> Credentials {
        guard credentials.deviceSecret == nil, let path = configuration.deviceSecretPath else { return credentials }
        var credentials = credentials
        credentials.deviceSecret = try readDeviceSecret(at: path)
        return credentials
    }

    /// Reads a device-secret file: exactly 32 bytes.
    private static func readDeviceSecret(at path: String) throws -> DeviceSecret {
        let descriptor = try step("open", path) { () throws(Errno) in try FileDescriptor.open(path, O_RDONLY) }
        return try descriptor.closeAfter {
            var bytes = try step("read", path) { () throws(Errno) in
                try descriptor.read(count: DeviceSecret.byteCount + 1, at: 0)
            }
            defer {
                bytes.withUnsafeMutableBytes { buffer in
                    if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
                }
            }
            guard bytes.count == DeviceSecret.byteCount else {
                throw VaultIOError(
                    .invalidDeviceSecret, operation: "read", path: path,
                    reason: "a device secret is exactly \(DeviceSecret.byteCount) bytes")
            }
            return DeviceSecret(secret: SecretBytes(bytes: bytes))
        }
    }
}
