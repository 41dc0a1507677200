// vault: Linux calls that the Swift Glibc module does not expose.
#include "CVaultSys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

_Static_assert(VAULT_RENAME_NOREPLACE == RENAME_NOREPLACE, "RENAME_NOREPLACE");
_Static_assert(VAULT_RENAME_EXCHANGE == RENAME_EXCHANGE, "RENAME_EXCHANGE");
_Static_assert(VAULT_LOCK_WRITE == F_WRLCK, "F_WRLCK");
_Static_assert(VAULT_LOCK_UNLOCK == F_UNLCK, "F_UNLCK");

int vault_ofd_lock(int fd, int command, int type, long long start, long long length) {
    struct flock fl = {0};
    fl.l_type = (short)type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)start;
    fl.l_len = (off_t)length;
    switch (command) {
    case VAULT_LOCK_TRY: return fcntl(fd, F_OFD_SETLK, &fl);
    case VAULT_LOCK_WAIT: return fcntl(fd, F_OFD_SETLKW, &fl);
    case VAULT_LOCK_PROBE:
        if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return -1;
        return fl.l_type == F_UNLCK ? 0 : 1;
    default: errno = EINVAL; return -1;
    }
}

int vault_renameat2(int dirfd, const char *oldpath, const char *newpath, unsigned int flags) {
    return renameat2(dirfd, oldpath, dirfd, newpath, flags);
}

const char *vault_strerror(int code, char *buffer, size_t size) {
    return strerror_r(code, buffer, size);
}

int vault_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
