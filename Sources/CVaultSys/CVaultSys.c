// vault: Linux calls that the Swift Glibc module does not expose.
#include "CVaultSys.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

_Static_assert(VAULT_RENAME_NOREPLACE == RENAME_NOREPLACE, "RENAME_NOREPLACE");
_Static_assert(VAULT_RENAME_EXCHANGE == RENAME_EXCHANGE, "RENAME_EXCHANGE");

int vault_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int vault_ofd_lock(int fd, int wait) {
    struct flock fl = {0};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 0;
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
}

int vault_renameat2(int dirfd, const char *oldpath, const char *newpath, unsigned int flags) {
    return renameat2(dirfd, oldpath, dirfd, newpath, flags);
}

const char *vault_strerror(int code, char *buffer, size_t size) {
    return strerror_r(code, buffer, size);
}
