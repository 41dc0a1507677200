// vaulttool: process hardening that only the command-line tool applies.
#ifndef CVAULTTOOL_H
#define CVAULTTOOL_H

#include "CVaultRun.h"

/// Makes the process non-dumpable (prctl PR_SET_DUMPABLE 0) and sets RLIMIT_CORE to 0.
/// Returns 0 on success or -1 with errno set.
int vault_disable_core_dumps(void);

/// Replaces the handlers of fatal signals (SEGV, BUS, ILL, FPE, ABRT, TRAP, SYS) with one that
/// writes a fixed line to stderr and calls `_exit(128 + signal)`. The Swift runtime's backtracer
/// would otherwise print registers and the memory they point to, which may hold secrets, and a
/// signal sent with kill(2) could leave the process running after the backtrace.
/// Returns 0 on success or -1 with errno set.
int vault_install_fatal_signal_handlers(void);

#endif
