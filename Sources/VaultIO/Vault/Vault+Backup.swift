// vault: verified, durable byte-for-byte copies of a vault file.

import Glibc
public import VaultFormat

/// A copy made by ``Vault/backup(of:to:credentials:now:)``.
public struct VaultBackup: Sendable {
    /// Where the copy is.
    public let path: String
    /// The generation copied.
    public let generation: UInt64
    /// The copy's size in bytes.
    public let byteCount: Int
    /// Whether the copy's header MAC and index were authenticated with a credential (otherwise
    /// only its header checksum and layout were checked).
    public let authenticated: Bool
}

extension Vault {
    /// Copies one generation of a vault file, byte for byte, and checks the copy.
    ///
    /// The source is read like any read: one open descriptor, one generation, no lock, so a
    /// writer that commits meanwhile does not tear the copy. The steps:
    ///
    /// 1. Check the source's header (checksum and layout, R-HDR-5); with `credentials`, also its
    ///    MAC and index (one key derivation).
    /// 2. Create `destination` exclusively with mode `0600`, write it, `fsync` it and its
    ///    directory (``DurableFile``).
    /// 3. Read the copy back from disk: it must equal the bytes read, and its header (and, with
    ///    `credentials`, its MAC and index, with the keys already unlocked) must check.
    ///
    /// A copy that fails step 3 is removed. Records are copied as ciphertext and not decrypted:
    /// a vault with a damaged record can still be backed up before it is repaired.
    ///
    /// - Parameters:
    ///   - source: The vault file.
    ///   - destination: The new file; when `nil`, ``defaultBackupPath(for:at:)``, or that name
    ///     followed by `.2`, `.3`, ... when it is taken. Never replaced.
    ///   - credentials: When given, the MAC and index of source and copy are authenticated too.
    ///   - now: The time for the default name, milliseconds since the Unix epoch.
    /// - Returns: Where the copy is and what was checked.
    /// - Throws: ``VaultIOError/Code/alreadyExists`` when `destination` exists; a
    ///   ``VaultFormatError`` when the source is not a sound vault (or the credential is wrong);
    ///   a ``VaultIOError`` naming the step that failed.
    public static func backup(
        of source: String,
        to destination: String? = nil,
        credentials: Credentials? = nil,
        now: Int64 = Vault.currentTime()
    ) throws -> VaultBackup {
        let named = destination
        var destination = destination ?? defaultBackupPath(for: source, at: now)
        let reader = try VaultFileReader(path: source)
        let headerBytes = try reader.headerBytes()
        let header = try VaultHeader.decode(headerBytes, fileLength: reader.fileLength)
        // (1) With a credential, the source must authenticate; the keys then check the copy.
        let keys = try credentials.map { credentials in
            let snapshot = try VaultSnapshot.open(
                headerBytes: headerBytes,
                fileLength: reader.fileLength,
                source: reader,
                with: credentials
            )
            return (keys: snapshot.keys, slot: snapshot.openedKeyslot)
        }
        let bytes = Array(try reader.read(offset: 0, count: reader.fileLength))
        // (2) Durably, and never over an existing file. A default name taken already (a second
        // backup in the same second) gets a counter: `<name>.2`, `<name>.3`, ...
        var attempt = 1
        while !(try createUnlessTaken(destination, bytes, mayTryAnother: named == nil && attempt < 100)) {
            attempt += 1
            destination = defaultBackupPath(for: source, at: now) + ".\(attempt)"
        }
        // (3) Read it back from disk and check it as a reader would.
        do {
            let copy = try VaultFileReader(path: destination)
            guard copy.fileLength == bytes.count, Array(try copy.read(offset: 0, count: copy.fileLength)) == bytes
            else {
                throw VaultIOError(
                    .system,
                    operation: "verify backup",
                    errno: .ioError,
                    path: destination,
                    reason: "the copy read back differs from the vault"
                )
            }
            let copyHeader = try copy.headerBytes()
            _ = try VaultHeader.decode(copyHeader, fileLength: copy.fileLength)
            if let keys {
                _ = try VaultSnapshot.open(
                    headerBytes: copyHeader,
                    fileLength: copy.fileLength,
                    source: copy,
                    keys: keys.keys,
                    openedKeyslot: keys.slot
                )
            }
        } catch {
            try? DurableFile.remove(destination)
            throw error
        }
        return VaultBackup(
            path: destination,
            generation: header.generation,
            byteCount: bytes.count,
            authenticated: keys != nil
        )
    }

    /// Creates `path` durably; `false` when something is there already and `mayTryAnother`.
    private static func createUnlessTaken(_ path: String, _ bytes: [UInt8], mayTryAnother: Bool) throws -> Bool {
        do {
            try DurableFile.create(at: path, contents: bytes)
            return true
        } catch {
            guard mayTryAnother, error.code == .alreadyExists else { throw error }
            return false
        }
    }

    /// `<vault>.backup-<UTC time>` next to the vault, for example
    /// `keys.vault.backup-20260101T120000Z`.
    ///
    /// - Parameters:
    ///   - source: The vault's path, as given.
    ///   - time: Milliseconds since the Unix epoch.
    public static func defaultBackupPath(for source: String, at time: Int64) -> String {
        var seconds = time_t(time / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let stamp =
            "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
            + "T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
        return source + ".backup-" + stamp
    }
}
