// vaulttool secret-service: reading and writing sd-bus messages from Swift (the `_basic` and
// container calls: sd-bus's variadic ones are not callable from Swift).

import CSecretService
import Glibc

/// A D-Bus error to answer a call with (Spec/secret-service.md §8).
package struct BusError: Error, Equatable {
    package let name: String
    package let message: String
    package init(_ name: String, _ message: String) { (self.name, self.message) = (name, message) }

    package static func invalidArgs(_ m: String) -> BusError { BusError("org.freedesktop.DBus.Error.InvalidArgs", m) }
    package static func notSupported(_ m: String) -> BusError { BusError("org.freedesktop.DBus.Error.NotSupported", m) }
    package static func limits(_ m: String) -> BusError { BusError("org.freedesktop.DBus.Error.LimitsExceeded", m) }
    package static func failed(_ m: String) -> BusError { BusError("org.freedesktop.DBus.Error.Failed", m) }
    package static func denied(_ m: String) -> BusError { BusError("org.freedesktop.DBus.Error.AccessDenied", m) }
    package static func unknownMethod(_ m: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.UnknownMethod", m)
    }
    package static let noSession = BusError("org.freedesktop.Secret.Error.NoSession", "no such session")
    package static let isLocked = BusError("org.freedesktop.Secret.Error.IsLocked", "the collection is locked")
    package static func noSuchObject(_ path: String) -> BusError {
        BusError("org.freedesktop.Secret.Error.NoSuchObject", "no such object: \(path)")
    }
}

/// Limits on what a call may carry (R-SS-10).
package enum BusLimits {
    package static let arrayElements = 100_000
    package static let attributes = 256
    package static let textBytes = 4_096
    package static let secretBytes = 1 << 20
}

/// Reads the arguments of a message in order.
package struct MessageReader {
    let message: OpaquePointer

    package init(_ message: OpaquePointer) { self.message = message }

    private func check(_ r: Int32, _ what: String) throws(BusError) {
        if r <= 0 { throw .invalidArgs("cannot read \(what)") }
    }

    package func string() throws(BusError) -> String {
        var p: UnsafePointer<CChar>? = nil
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &p), "a string")
        guard let p else { throw .invalidArgs("cannot read a string") }
        if strlen(p) > BusLimits.textBytes { throw .limits("a string is over \(BusLimits.textBytes) bytes") }
        return String(cString: p)
    }

    package func objectPath() throws(BusError) -> String {
        var p: UnsafePointer<CChar>? = nil
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "o")), &p), "an object path")
        guard let p else { throw .invalidArgs("cannot read an object path") }
        return String(cString: p)
    }

    package func bool() throws(BusError) -> Bool {
        var v: Int32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &v), "a boolean")
        return v != 0
    }

    /// An `ay`, copied; the caller wipes what must be wiped.
    package func bytes(limit: Int = BusLimits.secretBytes + 64) throws(BusError) -> [UInt8] {
        var p: UnsafeRawPointer? = nil
        var size = 0
        let r = sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &p, &size)
        if r < 0 { throw .invalidArgs("cannot read a byte array") }
        if size > limit { throw .limits("a byte array is over \(limit) bytes") }
        guard let p, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: size))
    }

    package func enter(_ type: Character, _ contents: String) throws(BusError) {
        let r = contents.withCString { sd_bus_message_enter_container(message, CChar(type.asciiValue!), $0) }
        try check(r, "a container \(contents)")
    }

    package func exit() throws(BusError) {
        if sd_bus_message_exit_container(message) < 0 { throw .invalidArgs("malformed container") }
    }

    /// Whether the container being read has no more elements.
    package var atEnd: Bool { sd_bus_message_at_end(message, 0) > 0 }

    /// The type and contents of the next element, without reading it.
    package func peek() -> (Character, String)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) } ?? "")
    }

    package func skip(_ signature: String) throws(BusError) {
        let r = signature.withCString { sd_bus_message_skip(message, $0) }
        if r < 0 { throw .invalidArgs("cannot skip \(signature)") }
    }

    /// An `ao`.
    package func objectPaths() throws(BusError) -> [String] {
        try enter("a", "o")
        var paths: [String] = []
        while !atEnd {
            if paths.count >= BusLimits.arrayElements { throw .limits("more than \(BusLimits.arrayElements) paths") }
            paths.append(try objectPath())
        }
        try exit()
        return paths
    }

    /// An `a{ss}`, refusing repeated or empty names.
    package func stringMap() throws(BusError) -> [String: String] {
        try enter("a", "{ss}")
        var map: [String: String] = [:]
        while !atEnd {
            if map.count >= BusLimits.attributes { throw .limits("more than \(BusLimits.attributes) attributes") }
            try enter("e", "ss")
            let name = try string()
            let value = try string()
            try exit()
            if name.isEmpty { throw .invalidArgs("an attribute name is empty") }
            if map.updateValue(value, forKey: name) != nil { throw .invalidArgs("attribute \(name) is given twice") }
        }
        try exit()
        return map
    }
}

/// Appends values to a message being built.
package struct MessageWriter {
    let message: OpaquePointer

    package init(_ message: OpaquePointer) { self.message = message }

    private func check(_ r: Int32) throws(BusError) { if r < 0 { throw .failed("cannot build the reply") } }

    package func string(_ s: String) throws(BusError) {
        try check(s.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) })
    }

    package func objectPath(_ s: String) throws(BusError) {
        try check(s.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) })
    }

    package func bool(_ b: Bool) throws(BusError) {
        var v: Int32 = b ? 1 : 0
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &v))
    }

    package func uint64(_ u: UInt64) throws(BusError) {
        var v = u
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &v))
    }

    package func bytes(_ b: [UInt8]) throws(BusError) {
        try check(
            b.withUnsafeBytes {
                sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count)
            }
        )
    }

    package func open(_ type: Character, _ contents: String) throws(BusError) {
        try check(contents.withCString { sd_bus_message_open_container(message, CChar(type.asciiValue!), $0) })
    }

    package func close() throws(BusError) { try check(sd_bus_message_close_container(message)) }

    package func objectPaths(_ paths: [String]) throws(BusError) {
        try open("a", "o")
        for p in paths { try objectPath(p) }
        try close()
    }

    package func stringMap(_ map: [String: String]) throws(BusError) {
        try open("a", "{ss}")
        for (k, v) in map.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
            try open("e", "ss")
            try string(k)
            try string(v)
            try close()
        }
        try close()
    }
}
