// vault: the causal version of a format-3 entry, a bounded history of write events.

/// The ID of one write of an item: 8 bytes, never all zero.
///
/// Spec: Spec/format-v3.md, §8 (design draft).
package struct EventID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 8 bytes read big-endian, so that numeric order is byte order (R3-EV-3); never 0.
    ///
    /// An integer rather than an array: a scan of a format-3 tree decodes one event per entry at
    /// least, and an array each was an allocation each (BENCHMARKS.md, issue 21).
    let value: UInt64

    /// The 8 bytes, in file order.
    package var bytes: [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    /// An ID from its 8 bytes; `nil` when they are not 8 or all zero (R3-EV-4).
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == EventHistory.eventByteCount else { return nil }
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value != 0 else { return nil }
        self.value = value
    }

    /// An ID from its bytes read big-endian, not 0.
    init(value: UInt64) {
        precondition(value != 0, "an event ID is not all zeros")
        self.value = value
    }

    /// The event of an entry migrated from an earlier format: `LE64(version)`, the bytes that the
    /// record's associated data already names (Spec/format-v3.md §11).
    package init(migratedVersion version: UInt64) {
        precondition(version != 0, "a migrated entry's version is at least 1")
        // The bytes of LE64(version), read big-endian.
        value = version.byteSwapped
    }

    /// The event as the `version` of a record's associated data: its 8 bytes, little-endian.
    package var recordVersion: UInt64 { value.byteSwapped }

    /// Appends the 8 bytes.
    func encode(into writer: inout ByteWriter) { writer.u64BigEndian(value) }

    /// A fresh random ID that is not in `history` (R3-EV-1).
    package static func random(avoiding history: EventHistory?, from random: some RandomSource) -> EventID {
        while true {
            if let id = EventID(bytes: random.bytes(EventHistory.eventByteCount)),
                history?.contains(id) != true
            {
                return id
            }
        }
    }

    /// Byte order, as the merge event's "compared as bytes" (R3-EV-3).
    package static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.value < rhs.value }

    package var description: String { bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }
}

/// What one entry's history says of another's, for one item ID (R3-EV-2).
package enum EventRelation: Equatable, Sendable {
    /// The same current event: the same write.
    case equal
    /// This entry's history holds the other's current event: it is newer, and knew the other.
    case descends
    /// The other entry's history holds this one's current event.
    case isAncestor
    /// Neither knew the other's current event.
    case concurrent
}

/// An item's history: its current event, then ancestors, newest first, at most 16.
///
/// A history holds only events that really are ancestors, so ``relation(to:)`` never claims a
/// descent that did not happen, whatever the clocks, branches or cloned machines involved;
/// cutting it to 16 can only turn "descends" into "concurrent".
///
/// Spec: Spec/format-v3.md, §8 (R3-EV-1 to R3-EV-4; design draft).
package struct EventHistory: Hashable, Sendable {
    /// The most events a history holds.
    package static let maximumCount = 16
    /// The bytes of one event ID.
    package static let eventByteCount = 8

    /// The write this entry records.
    package let current: EventID
    /// The ancestors, newest first (at most 15): empty, and so no allocation, for the one-event
    /// history that most entries carry (a scan of a format-3 tree decodes one per entry).
    package let ancestors: [EventID]

    /// The events, the current one first.
    package var events: [EventID] { [current] + ancestors }

    /// A history from its events, checked as a reader checks one: 1 to 16 events, none twice
    /// (R3-EV-4).
    package init(events: [EventID]) throws(VaultFormatError) {
        guard (1...Self.maximumCount).contains(events.count) else {
            throw VaultFormatError(.indexCorrupt, "an entry's history has \(events.count) events (1 to 16)")
        }
        // At most 16 events: comparing pairs is cheaper than hashing them into a set.
        for (index, event) in events.enumerated() where events[..<index].contains(event) {
            throw VaultFormatError(.indexCorrupt, "an entry's history names one event twice")
        }
        self.init(unchecked: events)
    }

    /// The history of a new item, whose first write is `event`.
    package init(first event: EventID) {
        current = event
        ancestors = []
    }

    private init(unchecked events: [EventID]) {
        current = events[0]
        ancestors = events.count == 1 ? [] : Array(events.dropFirst())
    }

    /// Whether `event` is this history's current event or one of its ancestors.
    package func contains(_ event: EventID) -> Bool { current == event || ancestors.contains(event) }

    /// The history after one more write, `event`, on top of this one: `event` first, the oldest
    /// event dropped past 16 (R3-EV-1).
    package func recording(_ event: EventID) -> EventHistory {
        precondition(!contains(event), "a new event is not already in the history")
        return EventHistory(unchecked: Array(([event] + events).prefix(Self.maximumCount)))
    }

    /// What this history says of `other`'s, both of one item ID (R3-EV-2).
    package func relation(to other: EventHistory) -> EventRelation {
        if current == other.current { return .equal }
        if ancestors.contains(other.current) { return .descends }
        if other.ancestors.contains(current) { return .isAncestor }
        return .concurrent
    }

    /// The history of the entry a merge keeps when `a` and `b` are concurrent: a merge event that
    /// depends only on the two inputs, then both current events, then the rest of both histories
    /// interleaved, the smaller current event's first, without repeats, cut to 16 (R3-EV-3).
    ///
    /// The result descends from both inputs, and merging the same pair again, in either order,
    /// gives the same history.
    package static func merging(_ a: EventHistory, _ b: EventHistory) -> EventHistory {
        precondition(a.current != b.current, "only two different writes are merged")
        let (low, high) = a.current < b.current ? (a, b) : (b, a)
        var merge = BLAKE2b.hash([Array("VLT3merg".utf8), low.current.bytes, high.current.bytes], length: 8)
        if merge.allSatisfy({ $0 == 0 }) { merge[0] = 1 }
        var events = [EventID(bytes: merge)!]
        var seen = Set(events)
        func add(_ event: EventID) {
            if events.count < maximumCount, seen.insert(event).inserted { events.append(event) }
        }
        add(low.current)
        add(high.current)
        let rest = (low.ancestors, high.ancestors)
        for index in 0..<max(rest.0.count, rest.1.count) {
            if index < rest.0.count { add(rest.0[index]) }
            if index < rest.1.count { add(rest.1[index]) }
        }
        return EventHistory(unchecked: events)
    }
}

// MARK: - Encoding

extension EventHistory {
    /// The encoded length: the count byte and 8 bytes per event.
    package var encodedByteCount: Int { 1 + Self.eventByteCount * (1 + ancestors.count) }

    /// Appends `n` and the events (Spec/format-v3.md §8).
    package func encode(into writer: inout ByteWriter) {
        writer.u8(UInt8(1 + ancestors.count))
        current.encode(into: &writer)
        for event in ancestors { event.encode(into: &writer) }
    }

    /// Reads a history, checked as R3-EV-4 says; a fault is `indexCorrupt`.
    package static func decode(from reader: inout ByteReader) throws(VaultFormatError) -> EventHistory {
        let count = Int(try reader.u8("the history's event count"))
        guard (1...maximumCount).contains(count) else {
            throw VaultFormatError(.indexCorrupt, "an entry's history has \(count) events (1 to 16)")
        }
        func event() throws(VaultFormatError) -> EventID {
            let value = try reader.u64BigEndian("an event ID")
            guard value != 0 else {
                throw VaultFormatError(.indexCorrupt, "an entry's history holds an event ID of zeros")
            }
            return EventID(value: value)
        }
        let current = try event()
        // The one-event history of most entries needs no array.
        guard count > 1 else { return EventHistory(first: current) }
        var events = [current]
        events.reserveCapacity(count)
        for _ in 1..<count { events.append(try event()) }
        return try EventHistory(events: events)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
