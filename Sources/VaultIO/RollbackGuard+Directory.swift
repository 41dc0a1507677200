// vault: the rollback record's directory must be one that only this user can change (L-RB-9).

import Glibc

extension RollbackGuard {
    /// Checks that `directory` (symbolic links resolved) and every directory above it can be
    /// changed only by this user or root: whoever else can change one of them can delete or
    /// replace the record and so hide a rollback. A directory above may be writable by others
    /// when its sticky bit is set (`/tmp`), and any of them by its group when that group is this
    /// user's own (a user-private group: the primary group, numbered as the user). A missing
    /// directory passes: it is created with mode `0700`.
    ///
    /// - Throws: ``VaultIOError/Code/rollbackStateInvalid`` naming the directory, its owner and
    ///   its mode.
    ///
    /// Spec: Spec/rollback.md (L-RB-9).
    static func checkTrusted(_ directory: String) throws {
        guard let resolved = realpath(directory, nil) else { return }
        let real = String(cString: resolved)
        free(resolved)
        var prefix = ""
        let components = real.split(separator: "/")
        for (index, component) in ([""] + components.map(String.init)).enumerated() {
            prefix += index == 0 ? "/" : (prefix == "/" ? "" : "/") + component
            var info = stat()
            guard stat(prefix, &info) == 0 else {
                throw VaultIOError.system("stat rollback state directory", Errno(rawValue: errno), path: prefix)
            }
            let isLast = index == components.count
            if let problem = Self.problem(with: info, last: isLast) {
                throw VaultIOError(
                    .rollbackStateInvalid,
                    operation: "check rollback state directory",
                    path: prefix,
                    reason: "\(problem) (owner uid \(info.st_uid), mode \(String(info.st_mode & 0o7777, radix: 8))): "
                        + "whoever can change it can delete the rollback record; make it yours with no group or "
                        + "other write (chmod go-w), or set VaultConfiguration.rollbackState (vaulttool: "
                        + "XDG_STATE_HOME) to a directory only you can change"
                )
            }
        }
    }

    /// Why a directory on the way to the record is not trusted, or `nil`.
    ///
    /// No user or group database is read (`getgrgid` can deadlock in a child forked from a
    /// threaded process): a user-private group is recognised by its convention, the user's
    /// primary group whose number equals the user's.
    private static func problem(with info: stat, last: Bool) -> String? {
        let me = geteuid()
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it is not a directory" }
        guard info.st_uid == me || (info.st_uid == 0 && !last) else { return "it belongs to another user" }
        let sticky = !last && info.st_mode & S_ISVTX != 0
        if info.st_mode & 0o002 != 0 && !sticky { return "others can write it" }
        let privateGroup = info.st_gid == getegid() && info.st_gid == me
        if info.st_mode & 0o020 != 0 && !sticky && !privateGroup { return "its group can write it" }
        return nil
    }
}
