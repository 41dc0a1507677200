// vault: which file a descriptor has open (device and inode).

import Glibc

/// A file's identity: its device and inode numbers.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}

extension FileDescriptor {
    /// The device and inode of the open file.
    ///
    /// The corresponding C function is `fstat`.
    func identity() throws(Errno) -> FileIdentity {
        let table = Syscalls.current
        var info = stat()
        _ = try Syscalls.once { table.fstat(rawValue, &info) }.get()
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
