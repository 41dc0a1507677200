// vault: running a program with secrets, the process side (fork and exec, sealed memfds,
// pseudo-terminals, signal relay), for VaultDelivery and the tool's fatal-signal handler.
#ifndef CVAULTRUN_H
#define CVAULTRUN_H

#include <stddef.h>
#include <sys/types.h>

/// How `vault_run_spawn` sets the child up. Descriptors are `-1` to leave the inherited one.
struct vault_run_child {
    /// The program: an absolute or relative path, already looked up in PATH.
    const char *path;
    /// NULL-terminated argument vector (argv[0] is the command as typed).
    char *const *argv;
    /// NULL-terminated environment, built by the caller.
    char *const *envp;
    /// Descriptors duplicated onto 0, 1 and 2 in the child.
    int stdin_fd;
    int stdout_fd;
    int stderr_fd;
    /// A pseudo-terminal's slave: the child starts a new session and makes it its controlling
    /// terminal (TIOCSCTTY), so it is the foreground process of that terminal.
    int controlling_tty;
};

/// Forks and executes `child`. Returns the child's pid, or -1 with `*exec_errno` set: the errno of
/// fork, or of execve in the child (read back through a close-on-exec pipe, so a command that
/// cannot be executed is reported by the parent, and no child is left).
/// The child gets back the SIGPIPE disposition recorded by `vault_run_signals_install`, and starts
/// with no signal blocked.
/// The corresponding C functions are `fork` and `execve`; ENOEXEC runs the file with /bin/sh, as
/// `execvp` does.
pid_t vault_run_spawn(const struct vault_run_child *child, int *exec_errno);

/// Executes `path` in place of this process (restoring SIGPIPE first, no signal blocked). Returns
/// only on failure,
/// with the errno. The corresponding C function is `execve`.
int vault_run_exec(const char *path, char *const *argv, char *const *envp);

/// Installs a handler for each of `signals` (and SIGCHLD) that writes, for each delivery, two ints
/// (the signal number and `si_code`) to `write_fd`, a non-blocking pipe. A signal whose
/// disposition was SIG_IGN is left ignored (nohup keeps working) and `ignored[i]` is set to 1.
/// Ignores SIGPIPE (a closed output is seen as EPIPE), recording the old disposition for children,
/// and unblocks the handled signals in the calling thread.
/// Returns 0, or -1 with errno set.
int vault_run_signals_install(const int *signals, int count, int write_fd, int *ignored);

/// Creates a memfd named `name` (MFD_ALLOW_SEALING, not close-on-exec), writes `count` bytes, and
/// seals it (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL). Returns the descriptor or
/// -1 with errno set. The corresponding C functions are `memfd_create` and `fcntl(F_ADD_SEALS)`.
int vault_run_memfd(const char *name, const void *bytes, size_t count);

/// Opens a pseudo-terminal pair, both close-on-exec; the slave gets the terminal attributes and
/// window size of `like_fd` when it is a terminal. Returns 0, or -1 with errno set.
/// The corresponding C functions are `posix_openpt`, `grantpt`, `unlockpt` and `ptsname_r`.
int vault_run_openpty(int like_fd, int *master_fd, int *slave_fd);

/// Copies the window size of terminal `from_fd` to `to_fd` (TIOCGWINSZ, TIOCSWINSZ).
int vault_run_copy_winsize(int from_fd, int to_fd);

/// Puts terminal `fd` in raw mode, saving its attributes for `vault_run_tty_restore` (also called by
/// the fatal-signal handler). Returns 0, or -1 with errno set.
int vault_run_tty_raw(int fd);

/// Restores the attributes saved by `vault_run_tty_raw`, once; nothing when none were saved.
/// Async-signal-safe.
void vault_run_tty_restore(void);

/// Creates a close-on-exec pipe, non-blocking at both ends when `nonblocking` is set.
/// The corresponding C function is `pipe2`.
int vault_run_pipe(int *fds, int nonblocking);

/// Overwrites `count` bytes at `bytes` with zeros in a way the compiler keeps (explicit_bzero).
void vault_run_wipe(void *bytes, size_t count);

#endif
