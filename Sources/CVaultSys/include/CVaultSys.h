// vault: Linux calls that the Swift Glibc module does not expose.
#ifndef CVAULTSYS_H
#define CVAULTSYS_H

#include <stddef.h>

/// What `vault_ofd_lock` does with its byte range.
enum {
    /// `F_OFD_SETLK`: take or release the range now, or fail with EAGAIN.
    VAULT_LOCK_TRY = 0,
    /// `F_OFD_SETLKW`: wait until the range can be taken (EINTR when a signal arrives).
    VAULT_LOCK_WAIT = 1,
    /// `F_OFD_GETLK`: whether another open file description holds a lock on the range.
    VAULT_LOCK_PROBE = 2,
};

/// Lock types, mirrored from <fcntl.h>.
enum {
    VAULT_LOCK_WRITE = 1,
    VAULT_LOCK_UNLOCK = 2,
};

/// An open-file-description lock request on bytes [start, start + length) of the file
/// (`length` 0: to the end of any file). `type` is VAULT_LOCK_WRITE or VAULT_LOCK_UNLOCK.
/// Returns 0 on success (VAULT_LOCK_PROBE: 0 when no other description holds a conflicting lock,
/// 1 when one does) or -1 with errno set (EAGAIN when held elsewhere and `command` is TRY).
int vault_ofd_lock(int fd, int command, int type, long long start, long long length);

/// `renameat2` flags, mirrored so that Swift need not import <linux/fs.h>.
enum {
    /// Fail with EEXIST instead of replacing `newpath`.
    VAULT_RENAME_NOREPLACE = 1,
    /// Atomically exchange `oldpath` and `newpath`; both must exist.
    VAULT_RENAME_EXCHANGE = 2,
};

/// Renames `oldpath` to `newpath`, both relative to the directory `dirfd`, with `renameat2` flags.
/// Returns 0 on success or -1 with errno set (EINVAL when the file system does not support `flags`).
int vault_renameat2(int dirfd, const char *oldpath, const char *newpath, unsigned int flags);

/// The text of error number `code`, thread-safely (GNU `strerror_r`).
/// The result points into `buffer` or to a static string.
const char *vault_strerror(int code, char *buffer, size_t size);

/// The user ID of the process at the other end of the connected Unix socket `fd`
/// (SO_PEERCRED). Returns 0 and sets `*uid`, or -1 with errno set.
int vault_peer_uid(int fd, unsigned int *uid);

#endif
