// vault: many derived keys in one guarded allocation.

/// A 32-byte key stored inside a shared guarded buffer.
///
/// Opening a vault derives about thirty subkeys. Each `sodium_malloc` costs a
/// few system calls (guard pages, `mprotect`, `mlock`), so one ``SecretBytes``
/// per subkey made every open cost ~0.8 ms; one guarded buffer holds them all.
struct KeyRef: ReadableBytes, Sendable {
    let arena: SecretBytes
    let offset: Int

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try arena.withUnsafeBytes { raw in try body(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + 32])) }
    }
}

/// Fills a guarded buffer with keys, one 32-byte slot at a time.
struct KeyArenaBuilder {
    let arena: SecretBytes
    private var next = 0

    init(slots: Int) { arena = SecretBytes(count: 32 * slots, protection: .guarded) }

    /// Derives `Derive(parent, id, context)` into the next slot.
    mutating func derive(from parent: some ReadableBytes, id: UInt64, context: StaticString) -> KeyRef {
        let slot = take()
        arena.withUnsafeBytes { raw in
            BLAKE2b.deriveKey(
                from: parent,
                id: id,
                context: context,
                into: UnsafeMutableRawBufferPointer(
                    mutating: UnsafeRawBufferPointer(rebasing: raw[slot.offset..<slot.offset + 32])
                )
            )
        }
        return slot
    }

    /// Writes `BLAKE2b(32, key, parts)` into the next slot.
    mutating func keyedHash(key: some ReadableBytes, message parts: [any ReadableBytes]) -> KeyRef {
        let slot = take()
        var digest = BLAKE2b.hash(parts, key: key, length: 32)
        copy(&digest, into: slot)
        return slot
    }

    /// Copies an existing key into the next slot.
    mutating func copy(_ key: some ReadableBytes) -> KeyRef {
        let slot = take()
        var bytes = key.withUnsafeBytes { Array($0) }
        copy(&bytes, into: slot)
        return slot
    }

    private func copy(_ bytes: inout [UInt8], into slot: KeyRef) {
        arena.withUnsafeBytes { raw in
            let target = UnsafeMutableRawBufferPointer(
                mutating: UnsafeRawBufferPointer(rebasing: raw[slot.offset..<slot.offset + 32])
            )
            bytes.withUnsafeBytes { target.copyMemory(from: $0) }
        }
        Sodium.wipe(&bytes)
    }

    private mutating func take() -> KeyRef {
        precondition(next + 32 <= arena.count, "key arena is full")
        defer { next += 32 }
        return KeyRef(arena: arena, offset: next)
    }
}
