// vault-bench: the physical floors our operations are compared with.

internal import CArgon2Floor
import Glibc
import VaultFormat

enum Floors {
    /// libargon2's own time for one Argon2id derivation with `parameters` (32-byte output, 32-byte salt).
    ///
    /// The corresponding C function is `argon2id_hash_raw`.
    static func argon2(_ parameters: KDFParameters, password: [UInt8]) -> Double {
        let salt = [UInt8](repeating: 0x5A, count: 32)
        var out = [UInt8](repeating: 0, count: 32)
        return timed {
            let status = argon2id_hash_raw(
                parameters.iterations,
                parameters.memoryKiB,
                parameters.lanes,
                password,
                password.count,
                salt,
                salt.count,
                &out,
                out.count
            )
            precondition(status == ARGON2_OK.rawValue, "argon2id_hash_raw failed: \(status)")
        }
    }

    /// The time to create a file of `count` bytes in `directory`, write it and `fsync` it: the
    /// physical floor of a whole-file copy-on-write commit. The file is removed afterwards (untimed).
    static func writeAndSync(count: Int, in directory: String) -> Double {
        let bytes = [UInt8](repeating: 0xA5, count: count)
        let path = directory + "/floor-\(getpid()).tmp"
        let seconds = timed {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            precondition(fd >= 0, "open \(path) failed: \(errno)")
            bytes.withUnsafeBytes { buffer in
                var done = 0
                while done < buffer.count {
                    let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                    precondition(n > 0 || errno == EINTR, "write failed: \(errno)")
                    if n > 0 { done += n }
                }
            }
            precondition(fsync(fd) == 0, "fsync failed: \(errno)")
            close(fd)
        }
        unlink(path)
        return seconds
    }
}
