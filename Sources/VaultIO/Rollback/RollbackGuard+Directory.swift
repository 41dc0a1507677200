// vault: the rollback record's directory must be one that only this user can change (L-RB-9).

import Glibc

extension RollbackGuard {
    /// Checks that `directory` (symbolic links resolved) and every directory above it can be
    /// changed only by this user or root: whoever else can change one of them can delete or
    /// replace the record and so hide a rollback. A directory above may be writable by others
    /// when its sticky bit is set (`/tmp`), and any of them by its group when that group is this
    /// user's own (a user-private group: the primary group, numbered as the user). A symbolic
    /// link on the way must belong to this user or root. A missing directory passes when the
    /// directories above it do: it is created with mode `0700`.
    ///
    /// - Throws: ``VaultIOError/Code/rollbackStateInvalid`` naming the directory, its owner and
    ///   its mode.
    ///
    /// Spec: Spec/rollback.md (L-RB-9).
    static func checkTrusted(_ directory: String) throws {
        // Resolved by hand, component by component, so that every link met on the way (in the
        // path as given or inside a link's target) has its owner checked, and every directory
        // passed through is judged: `realpath` would follow links whose owner could repoint
        // them after the check. The walk ends at the first missing component: the rest is
        // created here, with mode 0700, under directories already judged.
        var pending = Array(directory.split(separator: "/").map(String.init).reversed())
        var current = "/"
        var links = 0
        try checkDirectory("/", last: pending.isEmpty)
        while let name = pending.popLast() {
            if name == "." { continue }
            if name == ".." {
                current = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
                if current.isEmpty { current = "/" }
                continue
            }
            let next = current == "/" ? "/" + name : current + "/" + name
            var info = stat()
            guard lstat(next, &info) == 0 else {
                guard errno == ENOENT else {
                    let error = VaultIOError.system("stat rollback state directory", Errno(rawValue: errno), path: next)
                    throw unusable(error, directory)
                }
                return
            }
            if info.st_mode & S_IFMT == S_IFLNK {
                guard info.st_uid == geteuid() || info.st_uid == 0 else {
                    throw untrusted(next, "it is a symbolic link of another user", info)
                }
                links += 1
                guard links <= 40, let target = linkTarget(next) else {
                    let error = VaultIOError.system(
                        "resolve rollback state directory",
                        Errno(rawValue: ELOOP),
                        path: next
                    )
                    throw unusable(error, directory)
                }
                if target.hasPrefix("/") { current = "/" }
                pending += target.split(separator: "/").map(String.init).reversed()
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                // A file where a directory must be: the record cannot be kept there (L-RB-10).
                let error = VaultIOError.system("create rollback state directory", Errno(rawValue: ENOTDIR), path: next)
                throw unusable(error, directory)
            }
            if let problem = problem(with: info, last: pending.allSatisfy { $0 == "." }) {
                throw untrusted(next, problem, info)
            }
            current = next
        }
    }

    /// The target of the link at `path`, or `nil` when it cannot be read.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Checks one directory of a resolved path (`last`: the state directory itself).
    private static func checkDirectory(_ path: String, last: Bool) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw unusable(
                VaultIOError.system("stat rollback state directory", Errno(rawValue: errno), path: path),
                path
            )
        }
        if let problem = problem(with: info, last: last) { throw untrusted(path, problem, info) }
    }

    private static func untrusted(_ path: String, _ problem: String, _ info: stat) -> VaultIOError {
        VaultIOError(
            .rollbackStateInvalid,
            operation: "check rollback state directory",
            path: path,
            reason: "\(problem) (owner uid \(info.st_uid), mode \(String(info.st_mode & 0o7777, radix: 8))): "
                + "whoever can change it can delete the rollback record; make it yours with no group or "
                + "other write (chmod go-w), or set VaultConfiguration.rollbackState (vaulttool: "
                + "XDG_STATE_HOME) to a directory only you can change"
        )
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
