// vault: Linux calls that the Swift Glibc module does not expose.
#ifndef CVAULTSYS_H
#define CVAULTSYS_H

#include <stddef.h>

/// Takes (or tries to take) an open-file-description write lock on the whole file.
/// Returns 0 on success or -1 with errno set (EAGAIN when held elsewhere and `wait` is 0).
int vault_ofd_lock(int fd, int wait);

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
