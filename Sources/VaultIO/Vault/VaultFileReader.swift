// vault: reading one generation of a vault file through an open descriptor.

import Glibc
public import VaultFormat

/// One generation of a vault file, open for reading.
///
/// The reader opens the file read-only and keeps the descriptor until it is
/// released, serving header and record bytes with `pread`. Writers never change
/// a byte that a commit reaches: they append a format-3 commit after the last
/// one and write the other slot (Spec/format-v3.md §9.1), or write a whole new file
/// and rename it over the old one (see ``Vault/write(_:)-8yjd9``). The reader takes
/// a format-3 file's two slots once, at open, and measures the file's length after
/// them (R3-WR-6): every commit those slots name is then wholly inside that length.
/// So an open reader keeps seeing the complete generation it opened, even when a
/// writer commits meanwhile, and a read takes no lock.
///
/// The reader is a ``RecordSource``: a ``VaultSnapshot`` opened from it holds
/// it, and the descriptor closes when the last snapshot is released.
///
/// ```swift
/// let reader = try VaultFileReader(path: "/home/me/keys.vault")
/// let header = try reader.header()          // no credentials needed
/// let snapshot = try reader.open(with: .password("correct horse"))
/// ```
public final class VaultFileReader: RecordSource {
    /// The path the file was opened at.
    public let path: String
    /// The file's length when it was opened (measured after its first 1024 bytes were read).
    public let fileLength: Int
    /// The file's permissions and owner when it was opened.
    let status: FileStatus
    private let descriptor: FileDescriptor
    /// The file's first bytes (a format-3 file's two commit slots) as they were when the length
    /// was measured: what ``read(offset:count:)`` serves for them.
    private let prefix: [UInt8]

    /// How many bytes the opening takes at once: both format-3 commit slots.
    private static let prefixByteCount = 1024

    /// Opens a vault file read-only.
    ///
    /// - Parameter path: The vault file.
    /// - Throws: A ``VaultIOError`` when the file cannot be opened (`"open"`) or examined (`"fstat"`).
    public init(path: String) throws {
        self.path = path
        // O_NONBLOCK: a FIFO planted at the path must not hang the open; fstat then refuses it.
        let descriptor = try step("open", path) { () throws(Errno) in
            try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        }
        var status: FileStatus
        var prefix: [UInt8] = []
        do {
            status = try step("fstat", path) { () throws(Errno) in try descriptor.status() }
            guard status.isRegularFile else {
                throw VaultIOError(.invalidPath, operation: "open", path: path, reason: "not a regular file")
            }
            // A format-3 writer appends a commit's bytes before it writes the slot naming them
            // (Spec/format-v3.md §9.1), so a length measured after the slots were read covers every
            // commit they name. With the length measured first, a commit made before the slots were
            // read named bytes past it: one read as torn (the note), two as a file cut short. The
            // slots are read again after the measure: bytes that changed meanwhile (a slot being
            // written) are read once more, the length with them.
            for _ in 0..<8 {
                prefix = try step("read", path) { () throws(Errno) in
                    try descriptor.read(count: Self.prefixByteCount, at: 0)
                }
                status = try step("fstat", path) { () throws(Errno) in try descriptor.status() }
                let again = try step("read", path) { () throws(Errno) in
                    try descriptor.read(count: Self.prefixByteCount, at: 0)
                }
                if again == prefix { break }
            }
        } catch {
            try? descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.status = status
        self.prefix = prefix
        fileLength = max(status.size, prefix.count)
    }

    deinit {
        try? descriptor.close()
    }

    /// Returns `count` bytes at `offset`.
    ///
    /// The corresponding C function is `pread`.
    ///
    /// - Throws: A ``VaultIOError`` (`"read"`) when `pread` fails, or
    ///   ``VaultFormatError`` `truncated` when the file ends first.
    public func read(offset: Int, count: Int) throws -> ArraySlice<UInt8> {
        guard offset >= 0, count >= 0 else { throw VaultFormatError(.truncated, "the file ends early") }
        // The first bytes as they were read before the length was measured; the rest from the file,
        // where a writer changes nothing below a committed length (R3-WR-1).
        guard offset < prefix.count else { return try readFile(offset: offset, count: count)[...] }
        let held = prefix[offset..<offset + min(count, prefix.count - offset)]
        guard held.count < count else { return held }
        return (Array(held) + (try readFile(offset: prefix.count, count: count - held.count)))[...]
    }

    /// `count` bytes at `offset` from the file itself.
    private func readFile(offset: Int, count: Int) throws -> [UInt8] {
        let bytes = try step("read", path) { () throws(Errno) in try descriptor.read(count: count, at: offset) }
        guard bytes.count == count else { throw VaultFormatError(.truncated, "the file ends early") }
        return bytes
    }

    /// The header's bytes: in formats 1 and 2 the header, whose 16-byte preamble tells its length
    /// (R-HDR-1, R-HDR-4); in format 3 the current commit slot and the header chunk it names
    /// (Spec/format-v3.md §4, §5).
    ///
    /// - Throws: ``VaultFormatError`` `notAVault`, `unsupportedVersion`, `structure`,
    ///   `truncated` or `headerCorrupt`; a ``VaultIOError`` when reading fails.
    public func headerBytes() throws -> [UInt8] { try head().bytes }

    /// The head of the current generation, and whether a format-3 file's other commit slot is
    /// damaged or holds a commit that did not complete (R3-SLT-4).
    package func head() throws -> VaultHead {
        try VaultHead.read(fileLength: fileLength) { offset, count in try read(offset: offset, count: count) }
    }

    /// The header, checked against its checksum but not authenticated (R-HDR-5).
    ///
    /// Enough to describe a vault without credentials: its ID, generation,
    /// keyslots and sizes. Its MAC is checked only by ``open(with:)``.
    public func header() throws -> VaultHeader {
        try VaultHeader.decode(try headerBytes(), fileLength: fileLength)
    }

    /// Unlocks this generation with `credentials` and decrypts its index.
    ///
    /// Runs the keyslot's key derivation (Argon2id for a password).
    ///
    /// - Throws: ``VaultFormatError`` (for example `wrongCredential`) or a ``VaultIOError``.
    public func open(with credentials: Credentials) throws -> VaultSnapshot {
        let head = try head()
        let headerBytes = head.bytes
        var credentials = credentials
        if credentials.tpm2 != nil {
            // The bindings are read like keyslots, before the MAC can be checked (R-TPM-2).
            let header = try VaultHeader.decode(headerBytes, fileLength: fileLength)
            credentials = try TPM2Keyslots.unsealing(credentials, header: header)
        }
        return try VaultSnapshot.open(
            headerBytes: headerBytes,
            fileLength: fileLength,
            source: self,
            with: credentials
        ).noting(head)
    }
}
