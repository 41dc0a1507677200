// VaultFormat: choosing Argon2id passes so that one unlock takes about a target time here.

/// Chooses the number of Argon2id passes for a target unlock time on this machine, as
/// KeePassXC's benchmark does, but measured on whole unlocks.
///
/// An unlock costs a fixed part (allocating and first touching `m` KiB, the AEAD) plus a
/// part per pass. Timing one pass and dividing counts the fixed part once per pass, so the
/// old estimate landed far below its target (500 ms asked, 150 ms got). This fits the line
/// `t(p) = fixed + perPass * p` through two medians of whole unlocks: one at the format's
/// minimum passes, one at the passes that line first predicts for the target, which puts
/// the second point near the answer where the fit matters.
///
/// ```swift
/// let chosen = try KDFCalibration.calibrate(.interactive, targetSeconds: 0.5)
/// ```
///
/// Spec: Spec/cli.md, "Key-derivation options" (`--kdf-target-ms`).
public enum KDFCalibration {
    /// How many whole unlocks each measurement point takes the median of.
    public static let samples = 3

    /// Measures one unlock with `parameters` and returns its duration in seconds.
    public typealias Measure = (KDFParameters) throws -> Double

    /// The parameters with the number of passes that makes one unlock take about
    /// `targetSeconds` according to `measure`.
    ///
    /// Memory and lanes never change: the weakest machine that must open the vault bounds
    /// them. Passes are only raised from `parameters.iterations`, and are capped by
    /// ``KDFParameters/maximumIterations`` and ``KDFParameters/maximumWork``.
    ///
    /// - Parameters:
    ///   - parameters: The memory, lanes and the least number of passes.
    ///   - targetSeconds: The wanted duration of one unlock.
    ///   - samples: Unlocks per measurement point; the median is used.
    ///   - measure: Times one unlock; ``measureUnlock(_:)`` by default. Tests pass a model.
    /// - Throws: What `measure` throws (``VaultFormatError`` `cryptoFailure` when Argon2 fails).
    public static func calibrate(
        _ parameters: KDFParameters,
        targetSeconds: Double,
        samples: Int = samples,
        measure: Measure = measureUnlock
    ) throws -> KDFParameters {
        let ceiling = Int(
            min(
                UInt64(KDFParameters.maximumIterations),
                KDFParameters.maximumWork / UInt64(max(parameters.memoryKiB, 1))
            )
        )
        let least = Int(parameters.iterations)
        func median(_ passes: Int) throws -> Double {
            let p = KDFParameters(memoryKiB: parameters.memoryKiB, iterations: UInt32(passes), lanes: parameters.lanes)
            let times = try (0..<max(samples, 1)).map { _ in try measure(p) }.sorted()
            return times[times.count / 2]
        }
        // First point: the format's minimum, a cost every vault pays at least.
        let first = Int(KDFParameters.minimumIterations)
        let firstTime = try median(first)
        // Through the origin first (an overestimate of the per-pass cost, so never past the target).
        let guess = Self.passes(target: targetSeconds, fixed: 0, perPass: firstTime / Double(first))
        var chosen = guess
        if guess > first && guess <= ceiling {
            let secondTime = try median(guess)
            let perPass = max((secondTime - firstTime) / Double(guess - first), 1e-9)
            let fixed = max(firstTime - perPass * Double(first), 0)
            chosen = Self.passes(target: targetSeconds, fixed: fixed, perPass: perPass)
        }
        let passes = min(max(chosen, least), max(ceiling, least))
        return KDFParameters(memoryKiB: parameters.memoryKiB, iterations: UInt32(passes), lanes: parameters.lanes)
    }

    /// The whole number of passes nearest to the target on the line `fixed + perPass * p`.
    static func passes(target: Double, fixed: Double, perPass: Double) -> Int {
        let exact = (target - fixed) / max(perPass, 1e-9)
        guard exact.isFinite else { return Int(KDFParameters.maximumIterations) }
        return Int(min(max(exact.rounded(), 1), 1_000_000))
    }

    /// Times one unlock's work with `parameters`: the Argon2id derivation of a password
    /// keyslot's key-encryption key and the unwrap of a 32-byte key, as an unlock runs them.
    ///
    /// - Throws: ``VaultFormatError`` `cryptoFailure` when Argon2 fails (for example, out of memory).
    public static func measureUnlock(_ parameters: KDFParameters) throws -> Double {
        let key = SecretBytes(count: 32, protection: .guarded)
        let credentials = Credentials(password: SecretBytes(utf8: "calibration password"))
        let vaultID = [UInt8](repeating: 0x5A, count: 16)
        let start = ContinuousClock.now
        _ = try KeyHierarchy.makeKeyslot(
            kind: .password,
            wrapping: key,
            scope: .masterKey,
            credentials: credentials,
            kdf: parameters,
            vaultID: vaultID,
            allowWeak: true
        )
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
