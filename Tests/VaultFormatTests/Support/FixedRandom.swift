// vault tests: a random source that hands out fixed bytes, for the spec's test vectors.

import VaultFormat

/// Hands out fixed bytes in order (the salts, nonces and keys a vector names); asking for more
/// than it holds is a test bug.
final class FixedRandom: RandomSource, @unchecked Sendable {
    private var bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count <= bytes.count)
        buffer.copyBytes(from: bytes.prefix(buffer.count))
        bytes.removeFirst(buffer.count)
    }
}
