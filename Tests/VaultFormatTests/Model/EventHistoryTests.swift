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

    @Test("a kept state takes in the other's events and keeps its own current event (R3-EV-3)")
    func absorbingKeepsTheCurrentEvent() {
        let base = EventHistory(first: event(1))
        let left = base.recording(event(2)).recording(event(4))
        let right = base.recording(event(3))
        let merged = left.absorbing(right)
        #expect(merged.events == [event(4), event(3), event(2), event(1)])
        #expect(merged.relation(to: left) == .equal, "the same write: the kept record is unchanged")
        #expect(merged.relation(to: right) == .descends)
        #expect(merged.absorbing(right) == merged && merged.absorbing(left) == merged, "taken in once")
        #expect(left.absorbing(base) == left, "nothing new: unchanged")
        let replaced = right.recording(event(5))
        #expect(replaced.relation(to: right.absorbing(left)) == .descends, "a rotation of the kept write descends")
    }

    @Test("taking in a history again after a cut to 16 changes nothing")
    func absorbingIsIdempotentAfterACut() {
        var long = EventHistory(first: event(100))
        for value in 101..<116 { long = long.recording(event(UInt64(value))) }
        var other = EventHistory(first: event(1))
        for value in 2..<6 { other = other.recording(event(UInt64(value))) }
        let merged = long.absorbing(other)
        #expect(merged.events.count == 16)
        #expect(merged.current == long.current && merged.events[1] == other.current)
        #expect(merged.absorbing(other) == merged)
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
            case .isAncestor:
                #expect(truthIsAncestor, "a claimed ancestry must be real")
            case .concurrent:
                // A real descent reads as concurrent only when the cut at 16 dropped the event.
                if truthDescends { #expect(!a.history.events.contains(b.history.current)) }
                if truthIsAncestor { #expect(!b.history.events.contains(a.history.current)) }
            }
            // The kept state (the descendant, else the greater current event) takes in the other's.
            let keepA = relation == .descends || (relation != .isAncestor && b.history.current < a.history.current)
            let (kept, other) = keepA ? (a, b) : (b, a)
            let merged = kept.history.absorbing(other.history)
            #expect(merged.current == kept.history.current)
            #expect(merged.relation(to: other.history) != .concurrent, "the merged state saw both")
            let state = State(history: merged, truth: a.truth.union(b.truth))
            copies[i] = state
            copies[j] = state
        }
    }
}
