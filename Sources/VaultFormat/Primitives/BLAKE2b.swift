// vault: BLAKE2b hashing and libsodium's BLAKE2b key derivation.

internal import CSodium

/// BLAKE2b (RFC 7693), unkeyed or keyed.
///
/// Spec: Spec/format-v1.md, "Primitives" (`BLAKE2b`, `Derive`).
package enum BLAKE2b {
    /// Hashes the concatenation of `parts` into `length` bytes (1...64), keyed
    /// with `key` (0...64 bytes; empty for an unkeyed hash).
    ///
    /// The corresponding C functions are `crypto_generichash_init`, `_update` and `_final`.
    public static func hash(_ parts: [any ReadableBytes], key: some ReadableBytes = [UInt8](), length: Int = 32)
        -> [UInt8]
    {
        Sodium.ensure()
        precondition((1...64).contains(length))
        // The state type is 64-byte aligned in C, which Swift cannot import: allocate it by size.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        defer {
            sodium_memzero(memory, crypto_generichash_statebytes())
            memory.deallocate()
        }
        let state = OpaquePointer(memory)
        key.withUnsafeBytes { k in
            precondition(k.count <= 64)
            _ = crypto_generichash_init(state, k.bindMemory(to: UInt8.self).baseAddress, k.count, length)
        }
        for part in parts {
            part.withUnsafeBytes { p in
                _ = crypto_generichash_update(state, p.bindMemory(to: UInt8.self).baseAddress, UInt64(p.count))
            }
        }
        var out = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash_final(state, &out, length)
        return out
    }

    /// Hashes one buffer.
    public static func hash(_ message: some ReadableBytes, key: some ReadableBytes = [UInt8](), length: Int = 32)
        -> [UInt8]
    {
        [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
            hash(message, key: key, into: UnsafeMutableRawBufferPointer(out))
            initialized = length
        }
    }

    /// Hashes one message into `out` (1...64 bytes) with the one-shot C call: no state on the heap,
    /// no array. Lookup tags take this path once per item read (Spec: "Lookup tag").
    ///
    /// The corresponding C function is `crypto_generichash`.
    static func hash(_ message: some ReadableBytes, key: some ReadableBytes, into out: UnsafeMutableRawBufferPointer) {
        Sodium.ensure()
        precondition((1...64).contains(out.count))
        message.withUnsafeBytes { m in
            key.withUnsafeBytes { k in
                precondition(k.count <= 64)
                _ = crypto_generichash(
                    out.bindMemory(to: UInt8.self).baseAddress!,
                    out.count,
                    m.bindMemory(to: UInt8.self).baseAddress,
                    UInt64(m.count),
                    k.bindMemory(to: UInt8.self).baseAddress,
                    k.count
                )
            }
        }
    }

    /// Derives a 32-byte subkey: `Derive(K, id, ctx)` in the spec.
    ///
    /// The corresponding C function is `crypto_kdf_derive_from_key`.
    ///
    /// - Parameters:
    ///   - key: The parent key, 32 bytes.
    ///   - id: The subkey number.
    ///   - context: Exactly 8 ASCII characters naming the job.
    public static func deriveKey(from key: SecretBytes, id: UInt64, context: StaticString) -> SecretBytes {
        SecretBytes(count: 32, protection: .guarded) { out in deriveKey(from: key, id: id, context: context, into: out)
        }
    }

    /// Derives a 32-byte subkey into `out`.
    static func deriveKey(
        from key: some ReadableBytes,
        id: UInt64,
        context: StaticString,
        into out: UnsafeMutableRawBufferPointer
    ) {
        Sodium.ensure()
        precondition(context.utf8CodeUnitCount == 8 && out.count == 32)
        key.withUnsafeBytes { k in
            precondition(k.count == 32)
            context.utf8Start.withMemoryRebound(to: CChar.self, capacity: 8) { ctx in
                _ = crypto_kdf_derive_from_key(
                    out.bindMemory(to: UInt8.self).baseAddress!,
                    32,
                    id,
                    ctx,
                    k.bindMemory(to: UInt8.self).baseAddress!
                )
            }
        }
    }

    /// A keyed hash whose result is itself a key: `BLAKE2b(32, key, msg)` in secret memory.
    static func keyedKey(key: SecretBytes, message parts: [any ReadableBytes]) -> SecretBytes {
        var bytes = hash(parts, key: key, length: 32)
        defer { Sodium.wipe(&bytes) }
        return SecretBytes(bytes: bytes, protection: .guarded)
    }
}
