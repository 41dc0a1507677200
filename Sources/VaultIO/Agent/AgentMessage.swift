// vault agent: the wire format of one request or response (pure bytes, no I/O).

import Glibc
import VaultFormat

/// One message of the vault agent protocol.
///
/// A frame is a 4-byte big-endian body length (1 to ``maximumBodyCount``) and the
/// body: the protocol version (1), the message type, and the type's fields, each
/// a 4-byte big-endian length and that many bytes. Field counts are fixed per
/// type (``MessageType/fieldCount``), except for `status` replies.
///
/// Spec: Spec/agent.md, section 3.
package struct AgentMessage: Equatable, Sendable {
    /// The protocol version this code speaks.
    package static let version: UInt8 = 1
    /// The largest body a peer accepts.
    package static let maximumBodyCount = 65_536

    package var type: MessageType
    package var fields: [[UInt8]]

    package init(_ type: MessageType, _ fields: [[UInt8]] = []) {
        self.type = type
        self.fields = fields
    }

    /// Message types. Requests are below 0x80, replies from 0x80.
    package struct MessageType: RawRepresentable, Equatable, Hashable, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Store keys: path, vault ID, master key (may be empty), base key, device secret (may be empty).
        package static let add = MessageType(rawValue: 0x01)
        /// Ask for keys: path, vault ID.
        package static let keys = MessageType(rawValue: 0x02)
        /// Drop keys: path (empty: every vault).
        package static let lock = MessageType(rawValue: 0x03)
        /// List held vaults: no field.
        package static let status = MessageType(rawValue: 0x04)
        /// Drop every key and exit: no field.
        package static let stop = MessageType(rawValue: 0x05)

        /// Done: a 4-byte count (vaults added, dropped or stopped).
        package static let ok = MessageType(rawValue: 0x80)
        /// The keys: master key (may be empty), base key, device secret (may be empty).
        package static let keyMaterial = MessageType(rawValue: 0x81)
        /// Held vaults: pairs of path and 8-byte seconds until they are dropped.
        package static let vaults = MessageType(rawValue: 0x82)
        /// The agent holds no keys for that vault: no field.
        package static let notHeld = MessageType(rawValue: 0xE0)
        /// The request was refused: a UTF-8 reason (never a secret).
        package static let refused = MessageType(rawValue: 0xE1)

        /// The number of fields the type carries; `nil` for `vaults` (any even number).
        package var fieldCount: Int? {
            switch self {
            case .add: 5
            case .keys: 2
            case .lock: 1
            case .status, .stop, .notHeld: 0
            case .ok, .refused: 1
            case .keyMaterial: 3
            default: nil
            }
        }

        package static let known: Set<MessageType> = [
            .add, .keys, .lock, .status, .stop, .ok, .keyMaterial, .vaults, .notHeld, .refused,
        ]
    }

    /// Why a body was rejected.
    package enum DecodeError: Error, Equatable {
        case empty, tooLong, wrongVersion(UInt8), unknownType(UInt8), truncatedField, wrongFieldCount
    }

    // MARK: - Encoding

    /// The body (without the length prefix), in one allocation of its exact size.
    package func encodeBody() -> [UInt8] { encode(prefixed: false) }

    /// The whole frame: length prefix and body, in one allocation of its exact size.
    ///
    /// Fields may carry keys: building into a buffer reserved up front leaves no reallocated
    /// copy behind, so the one buffer the caller wipes is the only one (Spec/agent.md, section 3).
    package func encodeFrame() -> [UInt8] { encode(prefixed: true) }

    private func encode(prefixed: Bool) -> [UInt8] {
        let bodyCount = 2 + fields.reduce(0) { $0 + 4 + $1.count }
        var out = [UInt8]()
        out.reserveCapacity((prefixed ? 4 : 0) + bodyCount)
        if prefixed { out += Self.bigEndian(UInt32(bodyCount)) }
        out += [Self.version, type.rawValue]
        for field in fields {
            out += Self.bigEndian(UInt32(field.count))
            out += field
        }
        return out
    }

    // MARK: - Decoding

    /// The body length announced by a 4-byte prefix, checked against the limit.
    package static func bodyCount(prefix: [UInt8]) throws(DecodeError) -> Int {
        guard prefix.count == 4 else { throw .truncatedField }
        let count = prefix.reduce(0) { $0 << 8 | Int($1) }
        guard count > 0 else { throw .empty }
        guard count <= maximumBodyCount else { throw .tooLong }
        return count
    }

    /// Decodes one body, rejecting anything but exactly the fields its type carries.
    package static func decode(body: [UInt8]) throws(DecodeError) -> AgentMessage {
        guard body.count >= 2 else { throw .empty }
        guard body.count <= maximumBodyCount else { throw .tooLong }
        guard body[0] == version else { throw .wrongVersion(body[0]) }
        let type = MessageType(rawValue: body[1])
        guard MessageType.known.contains(type) else { throw .unknownType(body[1]) }
        var fields = [[UInt8]]()
        var offset = 2
        while offset < body.count {
            guard body.count - offset >= 4 else { throw .truncatedField }
            let length = body[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard length <= body.count - offset else { throw .truncatedField }
            fields.append(Array(body[offset..<offset + length]))
            offset += length
        }
        if let expected = type.fieldCount {
            guard fields.count == expected else { throw .wrongFieldCount }
        } else if !fields.count.isMultiple(of: 2) {
            throw .wrongFieldCount
        }
        return AgentMessage(type, fields)
    }

    /// Overwrites every field (they may hold keys).
    package mutating func wipe() {
        for index in fields.indices { VaultFormat.wipe(&fields[index]) }
        fields.removeAll()
    }

    package static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    package static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xFF) }
    }

    package static func integer(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count <= 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
