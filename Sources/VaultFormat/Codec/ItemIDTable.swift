// vault: item ID → index position, without SipHash.

internal import CSodium

/// An open-addressing table from item IDs to index positions.
///
/// Rewriting a vault needs every ID's position (R-IDX-2 forbids repeats, and
/// changes address items by ID). A `Dictionary<ItemID, Int>` spent most of a
/// one-item commit to a 100,000-item vault in SipHash; IDs are random, so a
/// multiplicative hash with a per-process random multiplier spreads them as well
/// and costs a few nanoseconds. Two random multipliers, one per half, keep a key
/// holder who chooses the IDs from predicting which of them collide.
struct ItemIDTable: Sendable {
    private var highs: [UInt64]
    private var lows: [UInt64]
    /// Position + 1; 0 marks an empty slot.
    private var positions: [Int32]
    private let mask: Int
    private let shift: Int

    private static let multipliers: (UInt64, UInt64) = {
        var values: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &values) { SystemRandom().fill($0) }
        return (values.0 | 1, values.1 | 1)
    }()

    /// Builds the table for `index`, refusing repeated IDs.
    ///
    /// - Throws: `indexCorrupt` when an item ID appears twice (R-IDX-2).
    init(_ index: VaultIndex) throws(VaultFormatError) {
        var capacity = 16
        while capacity < 2 * index.count { capacity <<= 1 }
        highs = [UInt64](repeating: 0, count: capacity)
        lows = [UInt64](repeating: 0, count: capacity)
        positions = [Int32](repeating: 0, count: capacity)
        mask = capacity - 1
        shift = 64 - capacity.trailingZeroBitCount
        for position in 0..<index.count {
            guard insert(index.itemID(at: position), position: position) else {
                throw VaultFormatError(.indexCorrupt, "an item ID appears twice")
            }
        }
    }

    private func slot(for id: ItemID) -> Int {
        // Each half gets its own secret multiplier, so no choice of IDs (such as high == low)
        // lands in one bucket whatever the multipliers are.
        Int(truncatingIfNeeded: (id.high &* Self.multipliers.0 &+ id.low &* Self.multipliers.1) >> UInt64(shift)) & mask
    }

    private mutating func insert(_ id: ItemID, position: Int) -> Bool {
        var slot = slot(for: id)
        while positions[slot] != 0 {
            if highs[slot] == id.high && lows[slot] == id.low { return false }
            slot = (slot + 1) & mask
        }
        highs[slot] = id.high
        lows[slot] = id.low
        positions[slot] = Int32(position + 1)
        return true
    }

    /// The position of `id`, or `nil`.
    func position(of id: ItemID) -> Int? {
        var slot = slot(for: id)
        while positions[slot] != 0 {
            if highs[slot] == id.high && lows[slot] == id.low { return Int(positions[slot]) - 1 }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
