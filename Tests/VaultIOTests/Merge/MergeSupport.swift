// vault: replicas of one vault held in memory, for merge tests.

import Testing
import VaultFormat
import VaultIO
import VaultTestSupport

/// A copy of a vault file held in memory, changed the way one machine would change it.
struct Replica {
    var bytes: [UInt8]
    var credentials: Credentials = .password(testPassword)

    /// A fresh empty vault with the fast test KDF, in `format`.
    static func empty(format: NewVaultFormat = .version1_1) throws -> Replica {
        try withTemporaryDirectory { directory in
            var configuration = testConfiguration
            configuration.newVaultFormat = format
            _ = try makeVault(in: directory, configuration: configuration)
            return Replica(bytes: try readFile(directory + "/test.vault"))
        }
    }

    func open() throws -> VaultSnapshot { try VaultSnapshot.open(bytes, with: credentials) }

    /// Adds or replaces item `id`, dated `time`.
    mutating func set(
        _ id: ItemID,
        service: String,
        account: String = "alice",
        secret: String,
        at time: Int64,
        protection: ProtectionClass = .whenUnlocked
    ) throws {
        var writer = try VaultWriter(updating: open())
        var attributes = ItemAttributes(service: service, account: account)
        attributes.modificationDate = time
        try writer.put(
            ItemDraft(id: id, protectionClass: protection, attributes: attributes, secret: SecretBytes(utf8: secret)),
            now: time
        )
        bytes = try writer.encode(now: MergeClock.end)
    }

    /// Deletes item `id` at `time`.
    mutating func delete(_ id: ItemID, at time: Int64) throws {
        var writer = try VaultWriter(updating: open())
        try writer.remove(id, now: time)
        bytes = try writer.encode(now: MergeClock.end)
    }

    /// A format-3 replica holding one item ("db", secret "v0", written at the start), and its ID.
    static func withOneItem() throws -> (replica: Replica, id: ItemID) {
        var replica = try Replica.empty(format: .version3)
        let id = ItemID(random: SystemRandom())
        try replica.set(id, service: "db", secret: "v0", at: MergeClock.start)
        return (replica, id)
    }

    /// Every item's secret, in index order.
    func secrets() throws -> [String] {
        try open().items(includeSecrets: true).map { $0.secret!.utf8String }
    }

    /// Every readable item: ID → "service|account|secret|modified".
    func contents() throws -> [ItemID: String] {
        var out: [ItemID: String] = [:]
        for item in try open().items(includeSecrets: true, skipUnavailable: true) {
            let a = item.attributes
            out[item.entry.itemID] =
                "\(a.service)|\(a.account)|\(item.secret!.utf8String)|\(a.modificationDate)|\(a.preserved.map(\.tag))"
        }
        return out
    }

    /// Every version held, as (origin item, service, account without the conflict suffix, secret):
    /// an item is its own origin; a conflict copy names its origin in its marker.
    func versions() throws -> Set<Version> {
        var out = Set<Version>()
        for item in try open().items(includeSecrets: true, skipUnavailable: true) {
            let a = item.attributes
            var origin = item.entry.itemID
            var account = a.account
            if let marker = a.preserved.first(where: { $0.tag == VaultMerge.conflictMarkerTag }) {
                origin = ItemID(bytes: marker.value.prefix(16))
                account = String(account[..<account.range(of: " (conflict ")!.lowerBound])
            }
            out.insert(Version(origin: origin, service: a.service, account: account, secret: item.secret!.utf8String))
        }
        return out
    }

    struct Version: Hashable {
        let origin: ItemID
        let service: String
        let account: String
        let secret: String
    }
}

/// Simulated wall-clock times: milliseconds from a fixed start, far from the 90-day retention edge.
enum MergeClock {
    static let start: Int64 = 1_750_000_000_000
    static let end: Int64 = start + 86_400_000
}

/// Merges two replicas with ``VaultMerge`` and encodes the result.
func merged(_ ours: Replica, _ theirs: Replica, base: Replica? = nil) throws -> (Replica, MergeReport) {
    let result = try VaultMerge.merge(ours: ours.open(), theirs: theirs.open(), base: base?.open())
    return (Replica(bytes: try result.writer.encode(now: MergeClock.end), credentials: ours.credentials), result.report)
}

func readFile(_ path: String) throws -> [UInt8] {
    let reader = try VaultFileReader(path: path)
    return Array(try reader.read(offset: 0, count: reader.fileLength))
}

/// The merge property tests' seeded generator (VaultTestSupport's SplitMix64).
typealias SeededGenerator = SplitMix64

extension SecretBytes {
    var utf8String: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
