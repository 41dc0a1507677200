// vaulttool: process hardening, owned by the command-line tool (libraries leave a host
// process's signal handlers and dump settings alone).
#include "CVaultTool.h"
#include "CVaultRun.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

int vault_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static void vault_fatal_signal(int signal) {
    static const char message[] = "vaulttool: fatal signal; exiting without a core dump or backtrace\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    // `vaulttool run` may have put the terminal in raw mode: give it back as it was.
    vault_run_tty_restore();
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

