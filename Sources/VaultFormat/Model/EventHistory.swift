// vault: the causal version of a format-3 entry, a bounded history of write events.

/// The ID of one write of an item: 8 bytes, never all zero.
///
/// Spec: Spec/format-v3.md, §8 (design draft).
package struct EventID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 8 bytes read as a big-endian integer: no allocation per event, and integer order is
    /// the bytes' order (a history is compared and searched on every entry a scan decodes).
    package let bigEndianValue: UInt64

    /// The 8 bytes, in file order.
    package var bytes: [UInt8] { withUnsafeBytes(of: bigEndianValue.bigEndian) { Array($0) } }

    /// An ID from its 8 bytes read as a big-endian integer; `nil` for zero (R3-EV-4).
    package init?(bigEndianValue: UInt64) {
        guard bigEndianValue != 0 else { return nil }
        self.bigEndianValue = bigEndianValue
    }

    /// An ID from its 8 bytes; `nil` when they are not 8 or all zero (R3-EV-4).
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == EventHistory.eventByteCount else { return nil }
        self.init(bigEndianValue: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// The event of an entry migrated from an earlier format: `LE64(version)`, the bytes that the
    /// record's associated data already names (Spec/format-v3.md §11).
    package init(migratedVersion version: UInt64) {
        precondition(version != 0, "a migrated entry's version is at least 1")
        bigEndianValue = version.byteSwapped
    }

    /// A fresh random ID that is not in `history` (R3-EV-1).
    package static func random(avoiding history: EventHistory?, from random: some RandomSource) -> EventID {
        while true {
            if let id = EventID(bytes: random.bytes(EventHistory.eventByteCount)),
                history?.events.contains(id) != true
            {
                return id
            }
        }
    }

    /// Byte order: of two deletions at one time, a merge keeps the greater event (R-MRG-18).
    package static func < (lhs: EventID, rhs: EventID) -> Bool { lhs.bigEndianValue < rhs.bigEndianValue }

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

    /// The events, the current one first.
    package let events: [EventID]

    /// The write this entry records.
    package var current: EventID { events[0] }

    /// A history from its events, checked as a reader checks one: 1 to 16 events, none twice
    /// (R3-EV-4).
    package init(events: [EventID]) throws(VaultFormatError) {
        guard (1...Self.maximumCount).contains(events.count) else {
            throw VaultFormatError(.indexCorrupt, "an entry's history has \(events.count) events (1 to 16)")
        }
        guard Set(events).count == events.count else {
            throw VaultFormatError(.indexCorrupt, "an entry's history names one event twice")
        }
        self.events = events
    }

    /// The history of a new item, whose first write is `event`.
    package init(first event: EventID) {
        events = [event]
    }

    /// This history with `event` as its oldest event (the oldest one dropped when it is full);
    /// itself when it holds `event` already. R-MRG-20: a conflict copy takes in the deletion its
    /// version met.
    package func keepingAsOldest(_ event: EventID) -> EventHistory {
        if events.contains(event) { return self }
        return EventHistory(unchecked: Array(events.prefix(Self.maximumCount - 1)) + [event])
    }

    private init(unchecked events: [EventID]) {
        self.events = events
    }

    /// The history after one more write, `event`, on top of this one: `event` first, the oldest
    /// event dropped past 16 (R3-EV-1). An `event` the history already holds (a derived event a
    /// crafted file could plant) moves to the front rather than appearing twice.
    package func recording(_ event: EventID) -> EventHistory {
        EventHistory(unchecked: Array(([event] + events.filter { $0 != event }).prefix(Self.maximumCount)))
    }

    /// What this history says of `other`'s, both of one item ID (R3-EV-2).
    package func relation(to other: EventHistory) -> EventRelation {
        if current == other.current { return .equal }
        if events.dropFirst().contains(other.current) { return .descends }
        if other.events.dropFirst().contains(current) { return .isAncestor }
        return .concurrent
    }

    /// This history after a merge that kept this state over, or beside, `other` (R3-EV-3): the
    /// same current event (the write whose content is kept), then `other`'s current event, then
    /// the rest of this history, then the rest of `other`'s, without repeats, cut to 16. When
    /// `other` adds no event, this history unchanged.
    ///
    /// The kept state has seen both: a later merge with either input finds it equal to that input
    /// or descending from it, whatever its clock says. Absorbing the same history again changes
    /// nothing, even after a cut: `other`'s current event is never the one cut.
    package func absorbing(_ other: EventHistory) -> EventHistory {
        var seen = Set(events)
        guard other.events.contains(where: { !seen.contains($0) }) else { return self }
        var merged = [current]
        if seen.insert(other.current).inserted { merged.append(other.current) }
        merged += events.dropFirst()
        merged += other.events.dropFirst().filter { seen.insert($0).inserted }
        return EventHistory(unchecked: Array(merged.prefix(Self.maximumCount)))
    }
}

// MARK: - Encoding

extension EventHistory {
    /// The encoded length: the count byte and 8 bytes per event.
    package var encodedByteCount: Int { 1 + Self.eventByteCount * events.count }

    /// Appends `n` and the events (Spec/format-v3.md §8).
    package func encode(into writer: inout ByteWriter) {
        writer.u8(UInt8(events.count))
        for event in events { writer.u64BigEndian(event.bigEndianValue) }
    }

    /// Reads a history, checked as R3-EV-4 says; a fault is `indexCorrupt`.
    package static func decode(from reader: inout ByteReader) throws(VaultFormatError) -> EventHistory {
        let count = Int(try reader.u8("the history's event count"))
        guard (1...maximumCount).contains(count) else {
            throw VaultFormatError(.indexCorrupt, "an entry's history has \(count) events (1 to 16)")
        }
        var events: [EventID] = []
        events.reserveCapacity(count)
        for _ in 0..<count {
            guard let event = EventID(bigEndianValue: try reader.u64BigEndian("an event ID")) else {
                throw VaultFormatError(.indexCorrupt, "an entry's history holds an event ID of zeros")
            }
            events.append(event)
        }
        return try EventHistory(events: events)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
