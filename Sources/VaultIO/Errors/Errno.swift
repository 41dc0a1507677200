// vault: POSIX error numbers, named and described as swift-system does.

internal import CVaultSys
import Glibc

/// A POSIX error number reported by a system call.
///
/// The ``description`` is the C library's text for the number (`strerror`), as
/// in swift-system's `Errno`, so an error reads "Input/output error" rather
/// than "5".
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The raw C error number.
    public let rawValue: CInt

    /// Wraps a raw C error number.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// The C library's text for this number.
    ///
    /// The corresponding C function is `strerror_r`.
    public var description: String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
            guard let text = vault_strerror(rawValue, buffer.baseAddress, buffer.count) else {
                return "error \(rawValue)"
            }
            return String(cString: text)
        }
    }

    // MARK: - Numbers VaultIO names

    /// `EPERM`: the operation is not permitted.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EINTR`: a signal interrupted the call.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EIO`: a low-level input/output error.
    public static let ioError = Errno(rawValue: EIO)
    /// `EAGAIN`: the resource is temporarily unavailable (a lock is held elsewhere).
    public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    /// `EACCES`: permission denied.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EEXIST`: the file exists.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `EISDIR`: the path names a directory.
    public static let isDirectory = Errno(rawValue: EISDIR)
    /// `EINVAL`: an argument is invalid (also: a `renameat2` flag the file system does not support).
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ENOSPC`: no space left on the device.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// `ENOSYS`: the system call is not implemented.
    public static let noFunction = Errno(rawValue: ENOSYS)
}
