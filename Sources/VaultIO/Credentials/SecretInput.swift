// vault: reading a secret from a file, a pipe or standard input, leaving no copy behind.

import Glibc

/// Reads a secret (a password file, a secret piped to standard input, a template) to its end,
/// into one buffer that is wiped before every reallocation, so that no copy is left in freed
/// memory, with a limit on its size. `EINTR` is retried; the descriptor may be a pipe, a
/// terminal or a file.
///
/// ```swift
/// var password = try SecretInput.read(path: "/run/secrets/vault-pw", limit: 64 << 10)
/// defer { SecretMemory.wipe(&password) }
/// ```
public enum SecretInput {
    /// Reads `path` to its end.
    ///
    /// - Throws: ``VaultIOError/Code/system`` (`"open"` or `"read"`, with the errno and path), or
    ///   ``VaultIOError/Code/tooLarge`` when it holds more than `limit` bytes.
    public static func read(path: String, limit: Int) throws(VaultIOError) -> [UInt8] {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw VaultIOError.system("open", .current, path: path) }
        defer { Glibc.close(descriptor) }
        return try read(descriptor: descriptor, limit: limit, path: path)
    }

    /// Reads `descriptor` to its end (it stays open).
    ///
    /// - Throws: as ``read(path:limit:)``, with `path` in the error.
    public static func read(descriptor: CInt, limit: Int, path: String = "") throws(VaultIOError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 4096)
        var used = 0
        while true {
            if used > limit {
                SecretMemory.wipe(&out)
                throw VaultIOError(.tooLarge, operation: "read", path: path, reason: "more than \(limit) bytes")
            }
            if used == out.count {
                var bigger = [UInt8](repeating: 0, count: out.count * 2)
                bigger.withUnsafeMutableBytes { target in out.withUnsafeBytes { target.copyMemory(from: $0) } }
                SecretMemory.wipe(&out)
                out = bigger
            }
            let count = Syscalls.retryingOnInterrupt {
                out.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + used, $0.count - used) }
            }
            switch count {
            case .failure(let errno):
                SecretMemory.wipe(&out)
                throw VaultIOError.system("read", errno, path: path)
            case .success(0):
                // Shrink in place: zero the tail, then drop it (removeLast never reallocates).
                out.withUnsafeMutableBytes { buffer in
                    if buffer.count > used { explicit_bzero(buffer.baseAddress! + used, buffer.count - used) }
                }
                out.removeLast(out.count - used)
                return out
            case .success(let count):
                used += count
            }
        }
    }

    /// Reads `path` to its end in pieces of 64 KiB handed to `body`, in one buffer that is zeroed
    /// when done: a key file of up to 16 MiB is hashed as a stream, never held whole.
    ///
    /// - Throws: as ``read(path:limit:)``: ``VaultIOError/Code/tooLarge`` as soon as more than
    ///   `limit` bytes have been read.
    public static func forEachPiece(
        ofFileAt path: String,
        limit: Int,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(VaultIOError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw VaultIOError.system("open", .current, path: path) }
        defer { Glibc.close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer {
            explicit_bzero(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
        var total = 0
        while true {
            switch Syscalls.retryingOnInterrupt({ Glibc.read(descriptor, buffer.baseAddress!, buffer.count) }) {
            case .failure(let errno): throw VaultIOError.system("read", errno, path: path)
            case .success(0): return
            case .success(let count):
                total += count
                guard total <= limit else {
                    throw VaultIOError(.tooLarge, operation: "read", path: path, reason: "more than \(limit) bytes")
                }
                body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        }
    }
}
