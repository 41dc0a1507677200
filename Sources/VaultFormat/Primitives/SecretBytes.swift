// vault: secret bytes in guarded, locked, zeroed-on-release memory.

internal import CSodium

/// Bytes that must not leak: keys, passwords, secrets.
///
/// Keys live in memory from `sodium_malloc` (``Protection/guarded``: guard pages,
/// `mlock`ed where the system allows); item secrets, of which a bulk import makes
/// hundreds of thousands, live in ordinary heap memory (``Protection/zeroed``).
/// Both are overwritten with zeros on release. The type has no description that
/// shows the bytes, and `==` runs in constant time.
public final class SecretBytes: @unchecked Sendable, Equatable, ReadableBytes, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// Where the bytes live.
    public enum Protection: Sendable {
        /// `sodium_malloc`: guard pages around the buffer, locked in RAM, zeroed by `sodium_free`.
        case guarded
        /// The heap, zeroed with `sodium_memzero` before it is freed.
        case zeroed
    }

    private let pointer: UnsafeMutableRawPointer?
    private let protection: Protection
    /// The number of bytes.
    public let count: Int

    /// Allocates `count` zero bytes and lets `initializer` fill them.
    public init(
        count: Int,
        protection: Protection = .zeroed,
        _ initializer: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows {
        Sodium.ensure()
        self.count = count
        self.protection = protection
        if count == 0 {
            pointer = nil
        } else if protection == .guarded {
            guard let p = sodium_malloc(count) else { fatalError("sodium_malloc failed: out of memory") }
            sodium_memzero(p, count)
            pointer = p
        } else {
            let p = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            p.initializeMemory(as: UInt8.self, repeating: 0, count: count)
            pointer = p
        }
        try initializer(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Allocates `count` zero bytes.
    public convenience init(count: Int, protection: Protection = .zeroed) {
        self.init(count: count, protection: protection) { _ in }
    }

    /// Copies `bytes` into secret memory. The caller should wipe its own copy.
    public convenience init(bytes: some ReadableBytes, protection: Protection = .zeroed) {
        let copy: (UnsafeMutableRawBufferPointer) -> Void = { dst in
            bytes.withUnsafeBytes { src in dst.copyMemory(from: src) }
        }
        let n = bytes.withUnsafeBytes { $0.count }
        self.init(count: n, protection: protection, copy)
    }

    /// Copies the UTF-8 bytes of `string` (a password or a secret) into guarded memory.
    public convenience init(utf8 string: String) {
        var bytes = Array(string.utf8)
        self.init(bytes: bytes, protection: .guarded)
        Sodium.wipe(&bytes)
    }

    /// `count` random bytes from the operating system's generator, in guarded memory.
    public static func random(count: Int) -> SecretBytes {
        SecretBytes(count: count, protection: .guarded) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    deinit {
        guard let pointer else { return }
        switch protection {
        case .guarded:
            sodium_free(pointer)
        case .zeroed:
            sodium_memzero(pointer, count)
            pointer.deallocate()
        }
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Returns a copy as an ordinary array. Use only for bytes headed for
    /// encryption or for the caller who asked for the secret.
    public func copyBytes() -> [UInt8] { withUnsafeBytes { Array($0) } }

    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool { Sodium.constantTimeEqual(lhs, rhs) }

    public var description: String { "SecretBytes(\(count) bytes)" }
    public var debugDescription: String { description }
}

/// A 256-bit key with a role. Each role is its own type, so that a key cannot be
/// passed where another role belongs.
public protocol VaultKey: Sendable, CustomStringConvertible {
    /// The key's bytes.
    var secret: SecretBytes { get }
    /// Wraps existing key bytes.
    init(secret: SecretBytes)
}

extension VaultKey {
    /// The key size in bytes.
    public static var byteCount: Int { 32 }
    /// A fresh random key.
    public static func random() -> Self { Self(secret: .random(count: byteCount)) }
    public var description: String { "\(Self.self)(redacted)" }
}

/// The vault's master key: everything derives from it.
package struct MasterKey: VaultKey {
    public let secret: SecretBytes
    public init(secret: SecretBytes) { self.secret = secret }
}

/// The base key: header MAC, index, lookup tags and the `always` classes.
package struct BaseKey: VaultKey {
    public let secret: SecretBytes
    public init(secret: SecretBytes) { self.secret = secret }
}

/// A key that encrypts one protection class's records.
package struct ClassKey: VaultKey {
    public let secret: SecretBytes
    public init(secret: SecretBytes) { self.secret = secret }
}

/// A key-encryption key derived from a credential; it wraps a keyslot.
package struct KeyEncryptionKey: VaultKey {
    public let secret: SecretBytes
    public init(secret: SecretBytes) { self.secret = secret }
}

/// The device secret: a random 32-byte key kept outside the vault.
public struct DeviceSecret: VaultKey {
    public let secret: SecretBytes
    public init(secret: SecretBytes) { self.secret = secret }
}
