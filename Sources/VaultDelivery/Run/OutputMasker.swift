// vault: replacing secrets, and the ways programs commonly encode them, in a byte stream.

import Glibc
import VaultIO

/// Replaces every occurrence of a set of secrets in a stream of bytes with ``replacement``.
///
/// Each secret is searched for in its raw form and in the forms programs commonly print it in
/// (``forms(of:)``): base64 (standard and URL-safe alphabets, with and without padding),
/// percent-encoding and JSON string escaping. Matching is leftmost-longest, so a padded base64
/// form wins over its unpadded prefix.
///
/// The masker streams: `feed(_:)` returns every byte that can no longer be part of a match and
/// keeps back only a tail that is a proper prefix of some form (at most the longest form minus one
/// byte), so memory stays bounded whatever the length of the stream, and output that cannot be a
/// secret (a prompt) is passed on at once. ``finish()`` returns the tail at the end of the stream.
///
/// ```swift
/// var masker = OutputMasker(secrets: [Array("hunter2".utf8)])
/// let out = masker.feed(Array("pass: hun".utf8)) + masker.feed(Array("ter2\n".utf8)) + masker.finish()
/// // "pass: <concealed by vault>\n"
/// ```
///
/// Spec: Spec/cli.md, "run" (Masking).
public struct OutputMasker: Sendable {
    /// What a secret is replaced with.
    public static let replacement = Array("<concealed by vault>".utf8)

    /// Every form of every secret, longest first, without duplicates.
    private var patterns: [[UInt8]]
    /// For each byte value, the indices in ``patterns`` of the forms that start with it (longest first).
    private var byFirstByte: [[Int]]
    /// Whether any form starts with the byte value.
    private var starts: [Bool]
    /// Bytes that may still begin a match, kept until more arrive or the stream ends.
    private var pending: [UInt8] = []

    /// The length of the longest form; the tail kept back is always shorter.
    let longestForm: Int

    /// Whether there is nothing to mask (no secret, or only empty ones).
    public var isEmpty: Bool { patterns.isEmpty }

    /// A masker for `secrets`; empty secrets are ignored.
    public init(secrets: [[UInt8]]) {
        var unique = Set<[UInt8]>()
        for secret in secrets where !secret.isEmpty {
            for form in Self.forms(of: secret) where !form.isEmpty { unique.insert(form) }
        }
        patterns = unique.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        byFirstByte = Array(repeating: [], count: 256)
        starts = Array(repeating: false, count: 256)
        for (index, pattern) in patterns.enumerated() {
            byFirstByte[Int(pattern[0])].append(index)
            starts[Int(pattern[0])] = true
        }
        longestForm = patterns.first?.count ?? 0
    }

    /// Takes the next bytes of the stream and returns the masked bytes that are ready.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        if patterns.isEmpty { return Array(bytes) }
        var data = pending
        data.append(contentsOf: bytes)
        SecretMemory.wipe(&pending)
        let (out, kept) = scan(data, final: false)
        pending = Array(data[kept...])
        SecretMemory.wipe(&data)
        return out
    }

    /// Takes the next bytes of the stream and returns the masked bytes that are ready.
    public mutating func feed(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Ends the stream: returns the bytes kept back, masked.
    public mutating func finish() -> [UInt8] {
        var data = pending
        SecretMemory.wipe(&pending)
        let (out, _) = scan(data, final: true)
        SecretMemory.wipe(&data)
        return out
    }

    /// Overwrites the forms and the tail kept back (the masker is empty afterwards).
    public mutating func wipe() {
        for index in patterns.indices { SecretMemory.wipe(&patterns[index]) }
        patterns = []
        SecretMemory.wipe(&pending)
        byFirstByte = Array(repeating: [], count: 256)
        starts = Array(repeating: false, count: 256)
    }

    /// Masks `data`; returns the output and where the tail to keep back starts (`data.count` when
    /// nothing is kept, always so when `final`).
    private func scan(_ data: [UInt8], final: Bool) -> ([UInt8], Int) {
        var out = [UInt8]()
        out.reserveCapacity(data.count)
        let count = data.count
        var index = 0
        var runStart = 0
        var keepFrom = count
        data.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                outer: while index < count {
                    // Skip bytes that begin no form.
                    while index < count && !starts[Int(bytes[index])] { index += 1 }
                    if index == count { break }
                    var matched = 0
                    for candidate in byFirstByte[Int(bytes[index])] {
                        let pattern = patterns[candidate]
                        let available = count - index
                        if pattern.count > available {
                            // A longer form could still match once more bytes arrive: wait for them.
                            if !final && Self.hasPrefix(pattern, bytes, from: index, length: available) {
                                keepFrom = index
                                break outer
                            }
                            continue
                        }
                        if Self.hasPrefix(pattern, bytes, from: index, length: pattern.count) {
                            matched = pattern.count
                            break
                        }
                    }
                    if matched > 0 {
                        out.append(contentsOf: bytes[runStart..<index])
                        out.append(contentsOf: Self.replacement)
                        index += matched
                        runStart = index
                    } else {
                        index += 1
                    }
                }
                out.append(contentsOf: bytes[runStart..<min(index, keepFrom)])
            }
        }
        return (out, keepFrom)
    }

    /// Whether `bytes[from..<from+length]` equals the first `length` bytes of `pattern`.
    private static func hasPrefix(
        _ pattern: [UInt8],
        _ bytes: UnsafeBufferPointer<UInt8>,
        from: Int,
        length: Int
    ) -> Bool {
        pattern.withUnsafeBufferPointer { pattern in
            memcmp(pattern.baseAddress!, bytes.baseAddress! + from, length) == 0
        }
    }

    /// Overwrites the buffer of `bytes` in place, without the copy that mutating a shared array
    /// makes, so every array sharing it reads zeros afterwards. Only for the end of a secret's life.
    static func wipeShared(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
        }
    }
}
