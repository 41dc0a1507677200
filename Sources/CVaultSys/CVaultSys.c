// vault: Linux calls that the Swift Glibc module does not expose.
#include "CVaultSys.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

_Static_assert(VAULT_RENAME_NOREPLACE == RENAME_NOREPLACE, "RENAME_NOREPLACE");
_Static_assert(VAULT_RENAME_EXCHANGE == RENAME_EXCHANGE, "RENAME_EXCHANGE");

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

int vault_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
