// vault: a key file reduced to its BLAKE2b-512 digest, computed in one pass or as a stream.

internal import CSodium

/// A key file as keyslots use it: the BLAKE2b-512 digest of every byte, and how many bytes there were.
///
/// Kinds 2 and 3 never use a key file's bytes directly, only `BLAKE2b(64, "", keyfile)`, so a
/// key file of any size can be read in small pieces through a ``Hasher`` and then dropped: memory
/// stays bounded however large (or endless) the input is, and the result is byte-for-byte the one
/// ``init(contents:)`` computes over the whole file.
///
/// ```swift
/// let hasher = KeyFileDigest.Hasher()
/// while let chunk = nextChunk() { chunk.withUnsafeBytes { hasher.update($0) } }
/// let credentials = Credentials(keyFileDigest: hasher.finalize())
/// ```
///
/// Spec: Spec/format-v1.md, "Keyslots" (kinds 2 and 3) and R-KF-1 (the 32-byte writer minimum).
public struct KeyFileDigest: Sendable {
    /// The fewest key-file bytes a writer accepts for a new keyslot (R-KF-1): 256 bits, the
    /// size of the master key the slot wraps. Readers accept any length.
    public static let minimumByteCount = 32
    /// The size of the digest: BLAKE2b's longest output.
    public static let digestByteCount = 64

    /// `BLAKE2b(64, "", keyfile)`, in guarded memory.
    let digest: SecretBytes
    /// The number of bytes the key file had.
    public let byteCount: Int

    /// Hashes a whole key file held in memory.
    ///
    /// - Parameter contents: Every byte of the key file.
    public init(contents: SecretBytes) {
        let hasher = Hasher()
        contents.withUnsafeBytes { hasher.update($0) }
        self = hasher.finalize()
    }

    fileprivate init(digest: SecretBytes, byteCount: Int) {
        self.digest = digest
        self.byteCount = byteCount
    }

    /// Whether a writer may make a keyslot for this key file (R-KF-1).
    public var isLongEnoughForWriting: Bool { byteCount >= Self.minimumByteCount }

    /// An incremental BLAKE2b-512 over a key file read in pieces.
    ///
    /// The state lives in memory that is wiped when the hasher is released. Call
    /// ``finalize()`` once; the hasher cannot be used afterwards.
    ///
    /// The corresponding C functions are `crypto_generichash_init`, `_update` and `_final`.
    public final class Hasher {
        private let memory: UnsafeMutableRawPointer
        private var state: OpaquePointer { OpaquePointer(memory) }
        private var count = 0
        private var finished = false

        /// Starts an empty hash.
        public init() {
            Sodium.ensure()
            // The C state type is 64-byte aligned, which Swift cannot import: allocate it by size.
            memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
            _ = crypto_generichash_init(state, nil, 0, KeyFileDigest.digestByteCount)
        }

        deinit {
            sodium_memzero(memory, crypto_generichash_statebytes())
            memory.deallocate()
        }

        /// The number of bytes hashed so far.
        public var byteCount: Int { count }

        /// Adds the next piece of the key file.
        public func update(_ bytes: UnsafeRawBufferPointer) {
            precondition(!finished, "KeyFileDigest.Hasher used after finalize()")
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            _ = crypto_generichash_update(state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
            count += bytes.count
        }

        /// The digest of every byte given to ``update(_:)``.
        public func finalize() -> KeyFileDigest {
            precondition(!finished, "KeyFileDigest.Hasher finalized twice")
            finished = true
            let digest = SecretBytes(count: KeyFileDigest.digestByteCount, protection: .guarded) { out in
                _ = crypto_generichash_final(state, out.bindMemory(to: UInt8.self).baseAddress!, out.count)
            }
            return KeyFileDigest(digest: digest, byteCount: count)
        }
    }
}
