// vaulttool: Argon2id cost by preset name, explicit numbers, or calibration.

import FoundationEssentials
import Glibc
import VaultIO

/// `--kdf`, `--kdf-memory`, `--kdf-iterations`, `--kdf-lanes`, `--kdf-target-ms`.
///
/// Spec: Spec/cli.md, "Key-derivation options".
struct KDFOptions: OptionGroup {
    @Option(
        "--kdf",
        valueName: "preset",
        help: "interactive (default), moderate or sensitive.",
        completion: .values(KDFParameters.presets.map(\.name))
    )
    private var presetName: String?
    @Option("--kdf-memory", valueName: "KiB", help: "Argon2id memory in KiB (at least 19456).")
    private var memoryText: String?
    @Option("--kdf-iterations", valueName: "n", help: "Argon2id passes (2 to 16).") private var iterationsText: String?
    @Option("--kdf-lanes", valueName: "n", help: "Argon2id lanes (1 to 8).") private var lanesText: String?
    @Option(
        "--kdf-target-ms",
        valueName: "ms",
        help: "Raise passes until one unlock takes about <ms> here (measured)."
    )
    private var targetText: String?

    private(set) var preset: KDFParameters?
    private(set) var memory: UInt32?
    private(set) var iterations: UInt32?
    private(set) var lanes: UInt32?
    private(set) var targetMilliseconds: Int?

    mutating func validate() throws {
        if let name = presetName {
            guard let match = KDFParameters.presets.first(where: { $0.name == name }) else {
                throw UsageError("'--kdf' is interactive, moderate or sensitive, not '\(name)'")
            }
            preset = match.parameters
        }
        memory = try Self.number(_memoryText)
        iterations = try Self.number(_iterationsText)
        lanes = try Self.number(_lanesText)
        if let text = targetText {
            guard let value = Int(text), (1...60_000).contains(value) else {
                throw UsageError("'--kdf-target-ms' needs a number of milliseconds from 1 to 60000")
            }
            targetMilliseconds = value
        }
    }

    private static func number(_ option: Option) throws -> UInt32? {
        guard let text = option.wrappedValue else { return nil }
        guard let value = UInt32(text), value > 0 else { throw UsageError("'\(option.name)' needs a positive number") }
        return value
    }

    /// Whether any option was given.
    var isGiven: Bool {
        preset != nil || memory != nil || iterations != nil || lanes != nil || targetMilliseconds != nil
    }

    /// The parameters asked for, starting from `base` (the preset, else `base`), with explicit
    /// numbers overriding and calibration raising passes only.
    ///
    /// - Throws: ``VaultFormatError`` `kdfRejected` for parameters below the floor or above the ceilings.
    func resolve(base: KDFParameters = .default) throws -> KDFParameters {
        let start = preset ?? base
        var parameters = KDFParameters(
            memoryKiB: memory ?? start.memoryKiB,
            iterations: iterations ?? start.iterations,
            lanes: lanes ?? start.lanes
        )
        try parameters.validateForWriting()
        if let targetMilliseconds {
            parameters = try Self.calibrate(parameters, targetMilliseconds: targetMilliseconds)
        }
        return parameters
    }

    /// Raises the number of passes until one unlock takes about `targetMilliseconds` on this
    /// machine: medians of whole unlocks, fitted to a fixed part plus a part per pass
    /// (``KDFCalibration``). Memory and lanes never change.
    static func calibrate(_ parameters: KDFParameters, targetMilliseconds: Int) throws -> KDFParameters {
        try Progress.run("Measuring Argon2id on this machine") {
            try KDFCalibration.calibrate(parameters, targetSeconds: Double(targetMilliseconds) / 1000)
        }
    }

    /// `64 MiB, 3 passes, 2 lanes`.
    static func describe(_ parameters: KDFParameters) -> String {
        let memory =
            parameters.memoryKiB % 1024 == 0 ? "\(parameters.memoryKiB / 1024) MiB" : "\(parameters.memoryKiB) KiB"
        let passes = parameters.iterations == 1 ? "1 pass" : "\(parameters.iterations) passes"
        let lanes = parameters.lanes == 1 ? "1 lane" : "\(parameters.lanes) lanes"
        return "Argon2id \(memory), \(passes), \(lanes)"
    }
}
