// vault: systemd socket activation, the one reading of LISTEN_PID and LISTEN_FDS.

import Glibc

/// The listening socket systemd passes to a socket-activated service (`sd_listen_fds(3)`): the
/// agent's and `vaulttool credential-server`'s.
public enum SocketActivation {
    /// Descriptor 3, made close-on-exec, when `LISTEN_PID` is this process and `LISTEN_FDS` is at
    /// least 1; `nil` when this process was not socket-activated.
    ///
    /// - Throws: ``VaultIOError/Code/system`` (operation `"LISTEN_FDS"`, `ENOTSOCK`) when
    ///   descriptor 3 is not a socket.
    public static func inheritedListener(environment: [String: String]) throws(VaultIOError) -> CInt? {
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1
        else { return nil }
        let descriptor: CInt = 3  // SD_LISTEN_FDS_START
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else {
            throw VaultIOError(
                .system,
                operation: "LISTEN_FDS",
                errno: Errno(rawValue: ENOTSOCK),
                reason: "descriptor 3 is not a socket"
            )
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }
}
