// vault: the seeded generator of the property tests.

/// SplitMix64: a small seeded generator, so that a failing property case can be replayed from its
/// seed. Never used for keys or nonces (those come from a `RandomSource`).
public struct SplitMix64: RandomNumberGenerator {
    /// The generator's state; the seed is its first value.
    public var state: UInt64

    /// A generator whose sequence `state` fixes.
    public init(state: UInt64) { self.state = state }

    /// A generator whose sequence `seed` fixes.
    public init(seed: UInt64) { self.init(state: seed) }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// A random item ID.
    public mutating func itemID() -> ItemID {
        ItemID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &self) })
    }
}
