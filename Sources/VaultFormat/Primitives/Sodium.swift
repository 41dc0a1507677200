// vault: libsodium initialisation and small primitives.

internal import CSodium

/// Entry points to libsodium that need no key type.
enum Sodium {
    /// Initialises libsodium once per process.
    ///
    /// The corresponding C function is `sodium_init`.
    static let initialized: Bool = sodium_init() >= 0

    /// Makes sure libsodium is ready; traps only if the library cannot start,
    /// which means the process has no entropy source at all.
    @inline(__always) static func ensure() {
        precondition(initialized, "libsodium failed to initialise")
    }

    /// Compares two byte buffers in constant time.
    ///
    /// The corresponding C function is `sodium_memcmp`.
    static func constantTimeEqual(_ a: some ReadableBytes, _ b: some ReadableBytes) -> Bool {
        a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                pa.count == pb.count
                    && (pa.count == 0 || sodium_memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0)
            }
        }
    }

    /// Overwrites memory with zeros in a way the compiler cannot remove.
    ///
    /// The corresponding C function is `sodium_memzero`.
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Zeroes an array in place, then empties it.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
        bytes.removeAll()
    }
}

/// Zeroes `bytes` in a way the compiler cannot remove, then empties the array: the one wipe of
/// plain byte arrays that held a secret, for VaultFormat and VaultIO alike.
package func wipe(_ bytes: inout [UInt8]) { Sodium.wipe(&bytes) }

/// Bytes that can be read as a contiguous buffer (`[UInt8]`, `ArraySlice`, ``SecretBytes``).
public protocol ReadableBytes {
    /// Calls `body` with the bytes.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ReadableBytes where Element == UInt8 {}
extension ArraySlice: ReadableBytes where Element == UInt8 {}
