// vault hooks: the deterministic random source, for seed corpora and benchmark datasets.

import VaultFormat

/// A deterministic generator (ChaCha20 keystream from a text seed) for the fuzz and benchmark
/// packages. Never use it for real vaults; inside the vault package, tests use `SeededRandom`.
public struct SeededSource: RandomSource {
    private let base: SeededRandom

    /// Creates a generator from a text seed.
    public init(seed: String) { base = SeededRandom(seed: seed) }

    /// Fills `buffer` with the next bytes of the keystream.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) { base.fill(buffer) }
}
