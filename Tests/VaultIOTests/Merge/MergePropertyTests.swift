// vault: merge properties over randomized replicas from fixed seeds.

import Testing
import VaultFormat
import VaultIO

/// What one replica acknowledged last for an item: a version, or a deletion.
private enum Acknowledged {
    case set(Replica.Version, time: Int64)
    case deleted(time: Int64)
}

/// Three replicas of one vault, each changed by random adds, edits and deletions made in turn
/// from a shared base, with a shared clock (so the same item is often changed on several).
private struct Scenario {
    var base: Replica
    var replicas: [Replica]
    var acknowledged: [[ItemID: Acknowledged]]

    init(seed: UInt64, replicaCount: Int = 3, operations: Int = 8, format: NewVaultFormat = .version1_1) throws {
        var random = SeededGenerator(seed: seed)
        var clock = MergeClock.start
        var base = try Replica.empty(format: format)
        var ids: [ItemID] = []
        for n in 0..<6 {
            let id = random.itemID()
            clock += 1000
            try base.set(id, service: "base-\(n)", secret: "base secret \(n)", at: clock)
            ids.append(id)
        }
        self.base = base
        replicas = Array(repeating: base, count: replicaCount)
        acknowledged = Array(repeating: [:], count: replicaCount)
        for step in 0..<operations * replicaCount {
            let r = step % replicaCount
            clock += Int64.random(in: 1...2000, using: &random)
            let live = try replicas[r].open().index.entries.map(\.itemID)
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 3 || live.isEmpty {
                let id = random.itemID()
                let version = Replica.Version(
                    origin: id,
                    service: "new-\(r)-\(step)",
                    account: "alice",
                    secret: "s\(step)"
                )
                try replicas[r].set(id, service: version.service, secret: version.secret, at: clock)
                acknowledged[r][id] = .set(version, time: clock)
            } else if roll < 8 {
                let id = live.randomElement(using: &random)!
                let item = try #require(
                    try replicas[r].open().items(includeSecrets: false).first { $0.entry.itemID == id }
                )
                let version = Replica.Version(
                    origin: id,
                    service: item.attributes.service,
                    account: "alice",
                    secret: "edit \(step) on \(r)"
                )
                try replicas[r].set(id, service: version.service, secret: version.secret, at: clock)
                acknowledged[r][id] = .set(version, time: clock)
            } else {
                let id = live.randomElement(using: &random)!
                try replicas[r].delete(id, at: clock)
                acknowledged[r][id] = .deleted(time: clock)
            }
        }
    }

    /// Checks R-MRG-14: every version a replica acknowledged last is in `result` (under its ID
    /// or as a conflict copy), unless some replica deleted the item later.
    func expectNothingLost(in result: Replica, threeWay: Bool = false) throws {
        let versions = try result.versions()
        for (r, acknowledgements) in acknowledged.enumerated() {
            for (id, ack) in acknowledgements {
                guard case .set(let version, let time) = ack else { continue }
                let deletedLater = acknowledged.contains { other in
                    if case .deleted(let at)? = other[id] { return at > time } else { return false }
                }
                if deletedLater { continue }
                #expect(versions.contains(version), "replica \(r) lost \(version)")
            }
        }
    }
}

@Suite("Merge properties")
struct MergePropertyTests {
    static let seeds: [UInt64] = Array(1...16)
    /// Every seed in format 1.1 (the rules of format 2.0 and earlier, R-MRG-3 to R-MRG-9) and in
    /// format 3 (the histories, R-MRG-18).
    static let cases: [(NewVaultFormat, UInt64)] = [NewVaultFormat.version1_1, .version3].flatMap { format in
        seeds.map { (format, $0) }
    }

    @Test("Two-way merge is commutative on items and secrets", arguments: cases)
    func commutative(format: NewVaultFormat, seed: UInt64) throws {
        let s = try Scenario(seed: seed, replicaCount: 2, format: format)
        let (ab, _) = try merged(s.replicas[0], s.replicas[1])
        let (ba, _) = try merged(s.replicas[1], s.replicas[0])
        #expect(try ab.contents() == ba.contents())
    }

    @Test("Two-way merge is idempotent", arguments: cases)
    func idempotent(format: NewVaultFormat, seed: UInt64) throws {
        let s = try Scenario(seed: seed, replicaCount: 2, format: format)
        let a = s.replicas[0]
        #expect(try merged(a, a).0.contents() == a.contents())
        let (ab, _) = try merged(a, s.replicas[1])
        #expect(try merged(ab, s.replicas[1]).0.contents() == ab.contents())
        #expect(try merged(ab, ab).0.contents() == ab.contents())
        #expect(try merged(ab, a).0.contents() == ab.contents())
    }

    @Test("Any order of merging three replicas gives the same items and secrets", arguments: cases)
    func orderIndependent(format: NewVaultFormat, seed: UInt64) throws {
        let s = try Scenario(seed: seed, format: format)
        let (a, b, c) = (s.replicas[0], s.replicas[1], s.replicas[2])
        let reference = try merged(merged(a, b).0, c).0
        let expected = try reference.contents()
        #expect(try merged(a, merged(b, c).0).0.contents() == expected)
        #expect(try merged(merged(c, a).0, b).0.contents() == expected)
        #expect(try merged(b, merged(c, a).0).0.contents() == expected)
        #expect(try merged(merged(b, c).0, merged(a, c).0).0.contents() == expected)
        try s.expectNothingLost(in: reference)
    }

    @Test("A three-way merge loses no acknowledged version", arguments: cases)
    func threeWayLosesNothing(format: NewVaultFormat, seed: UInt64) throws {
        let s = try Scenario(seed: seed, replicaCount: 2, format: format)
        let (result, report) = try merged(s.replicas[0], s.replicas[1], base: s.base)
        try s.expectNothingLost(in: result, threeWay: true)
        // Three-way is symmetric on items too.
        let (other, _) = try merged(s.replicas[1], s.replicas[0], base: s.base)
        #expect(try result.contents() == other.contents())
        #expect(report.threeWay)
    }

    @Test("Merged files verify", arguments: cases.filter { $0.1 <= 4 })
    func mergedFilesVerify(format: NewVaultFormat, seed: UInt64) throws {
        let s = try Scenario(seed: seed, format: format)
        let (ab, _) = try merged(s.replicas[0], s.replicas[1], base: s.base)
        let (abc, _) = try merged(ab, s.replicas[2])
        _ = try abc.open().verify()
        _ = try ab.open().verify()
    }
}
