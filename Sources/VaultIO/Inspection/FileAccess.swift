// vault: whether this user could write a vault, as a commit writes it.

import Glibc

/// What this process's user may do with a vault file. Spec: Spec/cli.md, "inspect" (`writable`).
enum FileAccess {
    /// Whether a commit by this user could replace `path`: the file (symbolic links resolved)
    /// lives in a directory this user may create files in and search, on a file system
    /// mounted read-write, and, in a sticky directory (such as `/tmp`), this user owns the
    /// file or the directory or is root.
    ///
    /// The corresponding C functions are `realpath`, `faccessat` (with `AT_EACCESS`) and `stat`.
    static func canReplace(_ path: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        let file = String(cString: resolved)
        free(resolved)
        let directory = file.lastIndex(of: "/").map { String(file[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        guard faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) == 0 else { return false }
        var directoryInfo = stat()
        var fileInfo = stat()
        guard stat(directory, &directoryInfo) == 0, stat(file, &fileInfo) == 0 else { return false }
        let user = geteuid()
        if directoryInfo.st_mode & S_ISVTX != 0 && user != 0 && fileInfo.st_uid != user
            && directoryInfo.st_uid != user
        {
            return false
        }
        return true
    }
}
