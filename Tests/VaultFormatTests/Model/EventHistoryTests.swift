// Format-3 event histories (Spec/format-v3.md §8, R3-EV-1 to R3-EV-4).

import Testing
import VaultTestSupport

@testable import VaultFormat

private func event(_ value: UInt64) -> EventID { EventID(migratedVersion: value) }

private func decode(_ bytes: [UInt8]) throws(VaultFormatError) -> EventHistory {
    var reader = ByteReader(bytes, failure: .indexCorrupt)
    return try EventHistory.decode(from: &reader)
}

@Suite("Event histories")
struct EventHistoryTests {
    @Test("a history round-trips through its encoding")
    func encodingRoundTrips() throws {
        let history = EventHistory(first: event(7)).recording(event(9)).recording(event(3))
        var writer = ByteWriter()
        history.encode(into: &writer)
        #expect(writer.bytes.count == history.encodedByteCount)
        #expect(writer.bytes.count == 1 + 3 * 8)
        #expect(writer.bytes.first == 3)
        #expect(try decode(writer.bytes) == history)
        #expect(history.events.map(\.bytes) == [event(3).bytes, event(9).bytes, event(7).bytes])
    }

    @Test("an event ID keeps its 8 bytes, and IDs order as their bytes do (R3-EV-3)")
    func eventIDsAreTheirBytes() {
        var generator = SplitMix64(state: 21)
        for _ in 0..<500 {
            let a = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var b = a
            b[Int.random(in: 0..<8, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            guard let x = EventID(bytes: a), let y = EventID(bytes: b) else { continue }
            #expect(x.bytes == a && y.bytes == b)
            #expect((x < y) == a.lexicographicallyPrecedes(b) && (x == y) == (a == b))
        }
        #expect(EventID(bytes: [UInt8](repeating: 0, count: 8)) == nil)
        #expect(EventID(bytes: [1, 2, 3]) == nil)
        // A migrated event is LE64(version), and a record's version reads it back (§11).
        for version: UInt64 in [1, 0x0102_0304_0506_0708, .max] {
            #expect(event(version).bytes == withUnsafeBytes(of: version.littleEndian) { Array($0) })
            #expect(event(version).recordVersion == version)
        }
    }

    @Test("a one-event history, the common case, encodes as 9 bytes and decodes without ancestors")
    func oneEventHistories() throws {
        let history = EventHistory(first: event(0x0A0B))
        var writer = ByteWriter()
        history.encode(into: &writer)
        #expect(writer.bytes == [1] + event(0x0A0B).bytes)
        let decoded = try decode(writer.bytes)
        #expect(decoded == history && decoded.ancestors.isEmpty && decoded.events == [event(0x0A0B)])
        let longer = history.recording(event(5))
        #expect(longer.ancestors == [event(0x0A0B)] && longer.events == [event(5), event(0x0A0B)])
        #expect(longer.contains(event(0x0A0B)) && !history.contains(event(5)))
    }

    @Test("the merge event is BLAKE2b of both current events' bytes (R3-EV-3)")
    func mergeEventIsTheHashOfTheBytes() {
        let (two, twoFiftySix) = (EventHistory(first: event(2)), EventHistory(first: event(0x0100)))
        // Byte order, not the versions' order: LE64(256) starts 0x00, LE64(2) starts 0x02.
        #expect(event(0x0100) < event(2))
        let expected = BLAKE2b.hash([Array("VLT3merg".utf8), event(0x0100).bytes, event(2).bytes], length: 8)
        #expect(EventHistory.merging(two, twoFiftySix).current.bytes == expected)
        #expect(EventHistory.merging(twoFiftySix, two).current.bytes == expected)
    }

    @Test("a reader refuses a count outside 1 to 16, an ID of zeros and a repeated ID (R3-EV-4)")
    func decodingRefusesMalformedHistories() {
        let one = event(1).bytes
        #expect(throws: VaultFormatError(.indexCorrupt)) { try decode([0]) }
        #expect(throws: VaultFormatError(.indexCorrupt)) {
            try decode([17] + Array((1...17).map { event(UInt64($0)).bytes }.joined()))
        }
        #expect(throws: VaultFormatError(.indexCorrupt)) { try decode([1] + [UInt8](repeating: 0, count: 8)) }
        #expect(throws: VaultFormatError(.indexCorrupt)) { try decode([2] + one + one) }
        #expect(throws: VaultFormatError(.indexCorrupt)) { try decode([2] + one) }
        #expect(throws: Never.self) { try decode([16] + Array((1...16).map { event(UInt64($0)).bytes }.joined())) }
    }

    @Test("a write puts its event first and drops the oldest past 16 (R3-EV-1)")
    func recordingCutsAtSixteen() {
        var history = EventHistory(first: event(1))
        for value in 2...20 { history = history.recording(event(UInt64(value))) }
        #expect(history.events.count == 16)
        #expect(history.current == event(20))
        #expect(history.events.last == event(5))
    }

    @Test("equal, descends, is an ancestor and concurrent (R3-EV-2)")
    func relations() {
        let base = EventHistory(first: event(1))
        let left = base.recording(event(2))
        let right = base.recording(event(3))
        #expect(left.relation(to: left) == .equal)
        #expect(left.relation(to: base) == .descends)
        #expect(base.relation(to: left) == .isAncestor)
        #expect(left.relation(to: right) == .concurrent)
        var long = base
        for value in 10..<26 { long = long.recording(event(UInt64(value))) }
        #expect(long.relation(to: base) == .concurrent, "16 writes later the base event is cut off")
    }

    @Test("a merge event descends from both inputs and does not depend on their order (R3-EV-3)")
    func mergingIsSymmetricAndDescends() {
        let base = EventHistory(first: event(1))
        let left = base.recording(event(2)).recording(event(4))
        let right = base.recording(event(3))
        let merged = EventHistory.merging(left, right)
        #expect(merged == EventHistory.merging(right, left))
        #expect(merged.relation(to: left) == .descends)
        #expect(merged.relation(to: right) == .descends)
        #expect(merged.relation(to: base) == .descends)
        #expect(Array(merged.events.dropFirst().prefix(2)) == [event(3), event(4)].sorted())
        #expect(!left.events.contains(merged.current) && !right.events.contains(merged.current))
    }

    /// Copies of one item written and merged two-way at random, against the truth: every event a
    /// state really descends from. The bounded history never claims a descent the truth lacks,
    /// and merging a pair again changes nothing.
    @Test("random writes and two-way merges never claim a false descent", arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomHistoriesNeverClaimFalseDescent(seed: UInt64) {
        var generator = SplitMix64(state: seed)
        let random = SeededRandom(seed: "event histories \(seed)")
        struct State {
            var history: EventHistory
            var truth: Set<EventID>
        }
        let first = EventID.random(avoiding: nil, from: random)
        var copies = Array(repeating: State(history: EventHistory(first: first), truth: [first]), count: 4)
        for _ in 0..<2_000 {
            let i = Int.random(in: 0..<copies.count, using: &generator)
            if Bool.random(using: &generator) {
                let id = EventID.random(avoiding: copies[i].history, from: random)
                copies[i].history = copies[i].history.recording(id)
                copies[i].truth.insert(id)
                continue
            }
            let j = Int.random(in: 0..<copies.count, using: &generator)
            let (a, b) = (copies[i], copies[j])
            let relation = a.history.relation(to: b.history)
            let truthDescends = a.truth.contains(b.history.current)
            let truthIsAncestor = b.truth.contains(a.history.current)
            switch relation {
            case .equal:
                #expect(a.history.current == b.history.current)
            case .descends:
                #expect(truthDescends, "a claimed descent must be real")
                copies[j] = a
            case .isAncestor:
                #expect(truthIsAncestor, "a claimed ancestry must be real")
                copies[i] = b
            case .concurrent:
                // A real descent reads as concurrent only when the cut at 16 dropped the event.
                if truthDescends { #expect(!a.history.events.contains(b.history.current)) }
                if truthIsAncestor { #expect(!b.history.events.contains(a.history.current)) }
                let merged = EventHistory.merging(a.history, b.history)
                #expect(merged == EventHistory.merging(b.history, a.history))
                let state = State(history: merged, truth: a.truth.union(b.truth).union([merged.current]))
                #expect(merged.relation(to: a.history) == .descends)
                #expect(merged.relation(to: b.history) == .descends)
                copies[i] = state
                copies[j] = state
            }
        }
    }
}
