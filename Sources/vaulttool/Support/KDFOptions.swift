// vaulttool: Argon2id cost by preset name, explicit numbers, or calibration.

import Foundation
import VaultFormat

/// `--kdf`, `--kdf-memory`, `--kdf-iterations`, `--kdf-lanes`, `--kdf-target-ms`.
///
/// Spec: Spec/cli.md, "Key-derivation options".
struct KDFOptions {
    static let specs = [
        OptionSpec(
            names: ["--kdf"],
            valueName: "preset",
            help: "interactive (default), moderate or sensitive.",
            completion: .values(KDFParameters.presets.map(\.name))
        ),
        OptionSpec(names: ["--kdf-memory"], valueName: "KiB", help: "Argon2id memory in KiB (at least 19456)."),
        OptionSpec(names: ["--kdf-iterations"], valueName: "n", help: "Argon2id passes (2 to 16)."),
        OptionSpec(names: ["--kdf-lanes"], valueName: "n", help: "Argon2id lanes (1 to 8)."),
        OptionSpec(
            names: ["--kdf-target-ms"],
            valueName: "ms",
            help: "Raise passes until one unlock takes about <ms> here (measured)."
        ),
    ]

    var preset: KDFParameters?
    var memory: UInt32?
    var iterations: UInt32?
    var lanes: UInt32?
    var targetMilliseconds: Int?

    init(_ parsed: ParsedArguments) throws {
        if let name = parsed.value("--kdf") {
            guard let match = KDFParameters.presets.first(where: { $0.name == name }) else {
                throw UsageError("'--kdf' is interactive, moderate or sensitive, not '\(name)'")
            }
            preset = match.parameters
        }
        memory = try Self.number(parsed, "--kdf-memory")
        iterations = try Self.number(parsed, "--kdf-iterations")
        lanes = try Self.number(parsed, "--kdf-lanes")
        if let text = parsed.value("--kdf-target-ms") {
            guard let value = Int(text), (1...60_000).contains(value) else {
                throw UsageError("'--kdf-target-ms' needs a number of milliseconds from 1 to 60000")
            }
            targetMilliseconds = value
        }
    }

    private static func number(_ parsed: ParsedArguments, _ name: String) throws -> UInt32? {
        guard let text = parsed.value(name) else { return nil }
        guard let value = UInt32(text), value > 0 else { throw UsageError("'\(name)' needs a positive number") }
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
