// vault: open-file-description locks on byte ranges, and writes at an offset, for the write lock.

internal import CVaultSys
import Glibc

/// A range of bytes of a lock file. The bytes need not exist: a lock may cover any offset.
struct LockRange: Hashable, Sendable {
    /// The first byte.
    let start: Int64
    /// How many bytes; `0` means every byte from `start` on.
    let length: Int64

    /// Every byte of the file, whatever its length.
    static let wholeFile = LockRange(start: 0, length: 0)
}

extension FileDescriptor {
    /// Tries once to take an open-file-description write lock on `range`.
    ///
    /// The corresponding C function is `fcntl` with `F_OFD_SETLK`.
    ///
    /// - Returns: `false` when another open file description holds a conflicting lock.
    func tryLock(_ range: LockRange) throws(Errno) -> Bool {
        switch ofdLock(VAULT_LOCK_TRY, VAULT_LOCK_WRITE, range) {
        case .success: return true
        case .failure(let errno) where errno == .resourceTemporarilyUnavailable || errno == .permissionDenied:
            return false
        case .failure(let errno): throw errno
        }
    }

    /// Takes an open-file-description write lock on `range`, waiting as long as it takes.
    ///
    /// The corresponding C function is `fcntl` with `F_OFD_SETLKW`.
    func waitForLock(_ range: LockRange) throws(Errno) {
        _ = try ofdLock(VAULT_LOCK_WAIT, VAULT_LOCK_WRITE, range).get()
    }

    /// Releases whatever lock this open file description holds on `range`.
    ///
    /// The corresponding C function is `fcntl` with `F_OFD_SETLK` and `F_UNLCK`.
    func unlock(_ range: LockRange) throws(Errno) {
        _ = try ofdLock(VAULT_LOCK_TRY, VAULT_LOCK_UNLOCK, range).get()
    }

    /// Whether another open file description holds a lock on any byte of `range`.
    ///
    /// The corresponding C function is `fcntl` with `F_OFD_GETLK`.
    func isLockedElsewhere(_ range: LockRange) throws(Errno) -> Bool {
        try ofdLock(VAULT_LOCK_PROBE, VAULT_LOCK_WRITE, range).get() == 1
    }

    /// Writes every byte of `bytes` at `offset`, without moving the file position.
    ///
    /// The corresponding C function is `pwrite`.
    func writeAll(_ bytes: [UInt8], at offset: Int) throws(Errno) {
        try writeAll(bytes, at: offset, through: Syscalls.current.pwrite)
    }

    private func ofdLock(_ command: Int, _ type: Int, _ range: LockRange) -> Result<CInt, Errno> {
        let table = Syscalls.current
        return Syscalls.retryingOnInterrupt {
            table.lock(rawValue, CInt(command), CInt(type), range.start, range.length)
        }
    }
}
