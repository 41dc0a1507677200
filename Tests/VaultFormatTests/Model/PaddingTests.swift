// vault: record padding (Spec section 7.1).

import Testing
import VaultFormat

@Suite("Padding")
struct PaddingTests {
    @Test(arguments: [
        // The worked table of Spec section 7.1.
        (0, 32), (1, 32), (32, 32), (33, 64), (100, 128), (4096, 4096), (4097, 4352), (5000, 5120),
        (65_535, 65_536), (1_048_576, 1_048_576), (1_048_577, 1_081_344), (16_777_216, 16_777_216),
        // More values worked by hand from the formula.
        (31, 32), (64, 64), (65, 96), (4095, 4096),
        // E = 12, z = 12 − (3 + 1) = 8 → multiples of 256.
        (8191, 8192),
        // E = 13, z = 9 → multiples of 512;  E = 16, z = 11 → multiples of 2048.
        (8192, 8192), (8193, 8704), (65_536, 65_536), (65_537, 67_584),
    ])
    func paddedLength_matchesSpecTable(length: Int, padded: Int) {
        #expect(Padding.paddedLength(length) == padded)
    }

    /// The spec's formula, written out independently of the implementation.
    private func padme(_ length: Int) -> Int {
        var e = 0
        while 1 << (e + 1) <= length { e += 1 }
        var logE = 0
        while 1 << (logE + 1) <= e { logE += 1 }
        let z = e - (logE + 1)
        let step = 1 << z
        return (length + step - 1) / step * step
    }

    @Test func paddedLength_aboveSmallRange_followsPadme() {
        var length = 4097
        while length <= 16 * 1024 * 1024 {
            #expect(Padding.paddedLength(length) == padme(length), "L = \(length)")
            length += length / 61 + 1
        }
    }

    @Test func paddedLength_isMonotonicAndNeverShorter() {
        var previous = Padding.paddedLength(0)
        for length in 0...70_000 {
            let padded = Padding.paddedLength(length)
            #expect(padded >= length)
            #expect(padded >= previous)
            previous = padded
        }
    }

    /// Spec section 7.1: above 4096 the overhead is below 2^−S ≤ 1/16 (so well under Padmé's general 12%).
    @Test func paddedLength_overheadAbove4096IsBelowOneSixteenth() {
        var worst = 0.0
        var length = 4097
        while length <= 16 * 1024 * 1024 + 1 {
            let padded = Padding.paddedLength(length)
            worst = max(worst, Double(padded - length) / Double(length))
            length += length < 20_000 ? 1 : length / 997
        }
        #expect(worst < 1.0 / 16)
        #expect(worst <= 0.12)
    }

    @Test func paddedLength_upToFourKiB_isAMultipleOf32() {
        for length in 0...4096 {
            let padded = Padding.paddedLength(length)
            #expect(padded % 32 == 0 && padded - max(length, 1) < 32)
        }
    }
}
