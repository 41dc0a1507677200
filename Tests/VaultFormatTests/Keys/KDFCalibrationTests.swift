// VaultFormat tests: choosing Argon2id passes from measured unlocks (issue 12: `--kdf-target-ms`
// landed at 150 ms for 500). No clock is read: every duration comes from a model.

import Testing
import VaultFormat

@Suite("KDF calibration")
struct KDFCalibrationTests {
    /// A machine whose unlock costs `fixed` seconds plus `perPass` per pass.
    static func machine(fixed: Double, perPass: Double) -> KDFCalibration.Measure {
        { parameters in fixed + perPass * Double(parameters.iterations) }
    }

    static let base = KDFParameters(memoryKiB: 65_536, iterations: 2, lanes: 2)

    @Test(arguments: [0.2, 0.35, 0.5, 0.6])
    func aLargeFixedCost_stillLandsOnTheTarget(target: Double) throws {
        // The machine of the issue: one pass timed alone looked like 115 ms.
        let measure = Self.machine(fixed: 0.080, perPass: 0.035)
        let chosen = try KDFCalibration.calibrate(Self.base, targetSeconds: target, measure: measure)
        let time = try measure(chosen)
        #expect(abs(time - target) <= 0.035 / 2 + 1e-9, "\(chosen.iterations) passes take \(time) s")
        #expect(chosen.memoryKiB == Self.base.memoryKiB)
        #expect(chosen.lanes == Self.base.lanes)
    }

    @Test func eachPointIsTheMedianOfSeveralUnlocks_soOneOutlierDoesNotMoveIt() throws {
        var calls = 0
        let noisy: KDFCalibration.Measure = { parameters in
            calls += 1
            // Every third unlock is slowed down tenfold (another process took the CPU).
            let base = 0.080 + 0.035 * Double(parameters.iterations)
            return calls % 3 == 0 ? base * 10 : base
        }
        let chosen = try KDFCalibration.calibrate(Self.base, targetSeconds: 0.5, samples: 3, measure: noisy)
        #expect(chosen.iterations == 12)
        #expect(calls == 6)
    }

    @Test func passesAreNeverLowered_belowWhatWasAsked() throws {
        let measure = Self.machine(fixed: 0.1, perPass: 0.2)
        let asked = KDFParameters(memoryKiB: 65_536, iterations: 4, lanes: 2)
        #expect(try KDFCalibration.calibrate(asked, targetSeconds: 0.05, measure: measure).iterations == 4)
    }

    @Test func passesAreCappedByTheFormat() throws {
        let measure = Self.machine(fixed: 0, perPass: 0.001)
        #expect(
            try KDFCalibration.calibrate(Self.base, targetSeconds: 60, measure: measure).iterations
                == KDFParameters.maximumIterations
        )
        let big = KDFParameters(memoryKiB: 1_048_576, iterations: 2, lanes: 4)
        let capped = try KDFCalibration.calibrate(big, targetSeconds: 60, measure: measure)
        #expect(UInt64(capped.iterations) * UInt64(capped.memoryKiB) <= KDFParameters.maximumWork)
    }

    @Test func theMeasurementIsAWholeUnlock_atTheGivenCost() throws {
        var seen: [UInt32] = []
        _ = try KDFCalibration.calibrate(Self.base, targetSeconds: 1.0) { parameters in
            seen.append(parameters.iterations)
            #expect(parameters.memoryKiB == 65_536 && parameters.lanes == 2)
            return 0.080 + 0.035 * Double(parameters.iterations)
        }
        // Minimum passes first, then near the answer (not one lone pass).
        #expect(seen.first == KDFParameters.minimumIterations)
        #expect(!seen.contains(1))
        #expect(Set(seen).count == 2)
    }
}
