// vault: Linux calls that the Swift Glibc module does not expose.
#ifndef CVAULTSYS_H
#define CVAULTSYS_H

/// Makes the process non-dumpable (prctl PR_SET_DUMPABLE 0) and sets RLIMIT_CORE to 0.
/// Returns 0 on success or -1 with errno set.
int vault_disable_core_dumps(void);

/// Takes (or tries to take) an open-file-description write lock on the whole file.
/// Returns 0 on success or -1 with errno set (EAGAIN when held elsewhere and `wait` is 0).
int vault_ofd_lock(int fd, int wait);

#endif
