// vault: where nonces, salts, IDs and keys come from.

internal import CSodium
import Synchronization

/// A source of random bytes for nonces, salts, item IDs and new keys.
///
/// Production code uses ``SystemRandom``. A seeded source exists only at `package` access
/// (and, for the fuzz and benchmark packages, behind the unsupported `_VaultHooks` module), so
/// that fixtures are reproducible while no API an app can call picks a predictable source.
public protocol RandomSource: Sendable {
    /// Fills `buffer` with random bytes.
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

extension RandomSource {
    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { fill($0) }
        return out
    }

    /// A random key in secret memory.
    public func key<K: VaultKey>(_: K.Type = K.self) -> K {
        K(secret: SecretBytes(count: K.byteCount, protection: .guarded) { fill($0) })
    }
}

/// The operating system's generator, through libsodium.
public struct SystemRandom: RandomSource {
    public init() {}

    /// The corresponding C function is `randombytes_buf`.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        Sodium.ensure()
        if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }
}

/// A deterministic generator for tests and fixtures: ChaCha20 keystream from a
/// 32-byte seed. Never use it for real vaults.
package final class SeededRandom: RandomSource, Sendable {
    private let seed: [UInt8]
    /// Guarded so that threads sharing one generator never draw the same block.
    private let counter = Mutex<UInt64>(0)

    /// Creates a generator from a text seed.
    package init(seed: String) {
        self.seed = BLAKE2b.hash(Array(seed.utf8), length: 32)
    }

    /// The corresponding C function is `randombytes_buf_deterministic`.
    package func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        Sodium.ensure()
        let draw = counter.withLock { value in
            value += 1
            return value
        }
        var block = BLAKE2b.hash([seed, withUnsafeBytes(of: draw.littleEndian) { Array($0) }], length: 32)
        randombytes_buf_deterministic(base, buffer.count, &block)
    }
}
