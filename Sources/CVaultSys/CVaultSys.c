// vault: Linux calls that the Swift Glibc module does not expose.
#include "CVaultSys.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

_Static_assert(VAULT_RENAME_NOREPLACE == RENAME_NOREPLACE, "RENAME_NOREPLACE");
_Static_assert(VAULT_RENAME_EXCHANGE == RENAME_EXCHANGE, "RENAME_EXCHANGE");

int vault_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static void vault_fatal_signal(int signal) {
    static const char message[] = "vaulttool: fatal signal; exiting without a core dump or backtrace\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    _exit(128 + signal);
}

int vault_install_fatal_signal_handlers(void) {
    static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = vault_fatal_signal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    return 0;
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

int vault_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
