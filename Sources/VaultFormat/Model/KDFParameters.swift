// vault: Argon2id cost parameters, with the format's ceilings and floors.

/// Argon2id cost: memory in KiB, passes and parallel lanes.
///
/// Spec: Spec/format-v1.md, "Keyslots" (R-KS-2, R-KS-4).
public struct KDFParameters: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Memory in KiB.
    public var memoryKiB: UInt32
    /// Number of passes over memory.
    public var iterations: UInt32
    /// Parallel lanes (libargon2 runs them on threads).
    public var lanes: UInt32

    /// Creates parameters without checking them; see ``validateForReading()`` and ``validateForWriting()``.
    public init(memoryKiB: UInt32, iterations: UInt32, lanes: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.lanes = lanes
    }

    /// 64 MiB, 3 passes, 2 lanes: the default (RFC 9106's second recommendation with 2 lanes).
    public static let interactive = KDFParameters(memoryKiB: 65_536, iterations: 3, lanes: 2)
    /// 256 MiB, 3 passes, 2 lanes.
    public static let moderate = KDFParameters(memoryKiB: 262_144, iterations: 3, lanes: 2)
    /// 1 GiB, 4 passes, 4 lanes: for vaults opened rarely on large machines.
    public static let sensitive = KDFParameters(memoryKiB: 1_048_576, iterations: 4, lanes: 4)
    /// The default for new vaults.
    public static let `default` = interactive

    /// The named presets, by name.
    public static let presets: [(name: String, parameters: KDFParameters)] = [
        ("interactive", .interactive), ("moderate", .moderate), ("sensitive", .sensitive),
    ]

    /// Reader ceilings (R-KS-2).
    public static let maximumMemoryKiB: UInt32 = 1_048_576
    /// Reader ceiling on passes.
    public static let maximumIterations: UInt32 = 16
    /// Reader ceiling on lanes.
    public static let maximumLanes: UInt32 = 8
    /// Reader ceiling on memory × passes, in KiB.
    public static let maximumWork: UInt64 = 4_194_304
    /// Reader and writer ceiling on the memory × passes of all password keyslots of a file
    /// together, in KiB (R-KS-8): two keyslots at the single-slot ceiling.
    public static let maximumTotalWork: UInt64 = 8_388_608
    /// Writer floor on memory (OWASP's Argon2id minimum, R-KS-4).
    public static let minimumMemoryKiB: UInt32 = 19_456
    /// Writer floor on passes.
    public static let minimumIterations: UInt32 = 2

    /// Checks the ceilings every reader enforces before running Argon2 (R-KS-2).
    public func validateForReading() throws(VaultFormatError) {
        guard (1...Self.maximumLanes).contains(lanes) else {
            throw VaultFormatError(.kdfRejected, "Argon2id lanes \(lanes) is outside 1...\(Self.maximumLanes)")
        }
        guard (1...Self.maximumIterations).contains(iterations) else {
            throw VaultFormatError(
                .kdfRejected,
                "Argon2id passes \(iterations) is outside 1...\(Self.maximumIterations)"
            )
        }
        guard memoryKiB >= 8 * lanes, memoryKiB <= Self.maximumMemoryKiB else {
            throw VaultFormatError(
                .kdfRejected,
                "Argon2id memory \(memoryKiB) KiB is outside \(8 * lanes)...\(Self.maximumMemoryKiB) KiB"
            )
        }
        guard UInt64(memoryKiB) * UInt64(iterations) <= Self.maximumWork else {
            throw VaultFormatError(.kdfRejected, "Argon2id memory × passes exceeds \(Self.maximumWork) KiB")
        }
    }

    /// Checks the ceiling on the Argon2id work of one open, all password keyslots together (R-KS-8).
    ///
    /// - Throws: `kdfRejected` when the sum of memory × passes over every kind 1 and kind 3
    ///   keyslot exceeds ``maximumTotalWork``.
    public static func validateTotal(of keyslots: [Keyslot]) throws(VaultFormatError) {
        var total: UInt64 = 0
        for slot in keyslots where slot.kind.usesPassword {
            guard let kdf = slot.kdf else { continue }
            total += UInt64(kdf.memoryKiB) * UInt64(kdf.iterations)
        }
        guard total <= maximumTotalWork else {
            throw VaultFormatError(
                .kdfRejected,
                "the password keyslots together demand \(total) KiB × passes of Argon2id, over the \(maximumTotalWork) allowed for one open"
            )
        }
    }

    /// Checks the floors for newly written keyslots (R-KS-4) as well as the ceilings.
    public func validateForWriting() throws(VaultFormatError) {
        try validateForReading()
        guard !isWeak else {
            throw VaultFormatError(
                .kdfRejected,
                "Argon2id parameters are below the minimum for new vaults (\(Self.minimumMemoryKiB) KiB, \(Self.minimumIterations) passes)"
            )
        }
    }

    /// Whether these parameters are below the floor for new vaults.
    public var isWeak: Bool { memoryKiB < Self.minimumMemoryKiB || iterations < Self.minimumIterations }

    public var description: String { "Argon2id m=\(memoryKiB) KiB, t=\(iterations), p=\(lanes)" }
}
