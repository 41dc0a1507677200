// vault: running a program with secrets, the process side. Everything between fork and exec lives here, in C, because the
// child of a multi-threaded process may only make async-signal-safe calls until it executes.
#include "CVaultRun.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

// MARK: - Signals

static int relay_fd = -1;
static struct sigaction sigpipe_before;
static int sigpipe_recorded = 0;

static void relay_signal(int signal, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    int message[2] = {signal, info ? info->si_code : 0};
    if (relay_fd >= 0) {
        ssize_t ignored = write(relay_fd, message, sizeof message);
        (void)ignored;
    }
    errno = saved;
}

int vault_run_signals_install(const int *signals, int count, int write_fd, int *ignored) {
    relay_fd = write_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = relay_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) {
        struct sigaction before;
        if (sigaction(signals[i], NULL, &before) != 0) return -1;
        ignored[i] = before.sa_handler == SIG_IGN;
        if (ignored[i]) continue;
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    action.sa_flags |= SA_NOCLDSTOP;
    if (sigaction(SIGCHLD, &action, NULL) != 0) return -1;
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGPIPE, &ignore, &sigpipe_before) != 0) return -1;
    sigpipe_recorded = 1;
    // A parent may have started us with these signals blocked (a test runner's thread blocks
    // nearly all, and posix_spawn passes its mask on): unblock them here.
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    for (int i = 0; i < count; i++) {
        if (!ignored[i]) sigaddset(&handled, signals[i]);
    }
    return pthread_sigmask(SIG_UNBLOCK, &handled, NULL) == 0 ? 0 : -1;
}

static void restore_sigpipe(void) {
    if (sigpipe_recorded) sigaction(SIGPIPE, &sigpipe_before, NULL);
}

// MARK: - Executing

static void exec_program(const char *path, char *const *argv, char *const *envp) {
    execve(path, argv, envp);
    if (errno != ENOEXEC) return;
    // A file without a #! line: run it with the shell, as execvp does.
    size_t count = 0;
    while (argv[count]) count++;
    const char *shell_argv[count + 2];
    shell_argv[0] = "/bin/sh";
    shell_argv[1] = path;
    for (size_t i = 1; i <= count; i++) shell_argv[i + 1] = argv[i];
    execve("/bin/sh", (char *const *)shell_argv, envp);
    errno = ENOEXEC;
}

int vault_run_exec(const char *path, char *const *argv, char *const *envp) {
    restore_sigpipe();
    sigset_t none, before;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, &before);
    exec_program(path, argv, envp);
    int error = errno;
    sigprocmask(SIG_SETMASK, &before, NULL);
    return error;
}

static void child_fail(int report_fd) {
    int error = errno;
    ssize_t ignored = write(report_fd, &error, sizeof error);
    (void)ignored;
    _exit(127);
}

pid_t vault_run_spawn(const struct vault_run_child *child, int *exec_errno) {
    int report[2];
    *exec_errno = 0;
    if (pipe2(report, O_CLOEXEC) != 0) {
        *exec_errno = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *exec_errno = errno;
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        // The child: only async-signal-safe calls from here to execve.
        close(report[0]);
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigemptyset(&fallback.sa_mask);
        // SIGCHLD was handled by the parent; handlers are reset by execve anyway, but a signal that
        // arrives before it must not write into the parent's relay pipe.
        sigaction(SIGCHLD, &fallback, NULL);
        relay_fd = -1;
        restore_sigpipe();
        // No signal blocked: a child that blocks what is forwarded to it could not be stopped.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (child->controlling_tty >= 0) {
            if (setsid() < 0) child_fail(report[1]);
            if (ioctl(child->controlling_tty, TIOCSCTTY, 0) != 0) child_fail(report[1]);
        }
        const int targets[3] = {child->stdin_fd, child->stdout_fd, child->stderr_fd};
        for (int target = 0; target < 3; target++) {
            if (targets[target] < 0) continue;
            if (targets[target] == target) {
                // Already in place: only clear close-on-exec.
                int flags = fcntl(target, F_GETFD);
                if (flags < 0 || fcntl(target, F_SETFD, flags & ~FD_CLOEXEC) != 0) child_fail(report[1]);
            } else if (dup2(targets[target], target) < 0) {
                child_fail(report[1]);
            }
        }
        exec_program(child->path, child->argv, child->envp);
        child_fail(report[1]);
    }
    close(report[1]);
    int error = 0;
    ssize_t got;
    do {
        got = read(report[0], &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof error) {
        // The child could not execute and exits 127; collect it so that no zombie is left.
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        *exec_errno = error;
        return -1;
    }
    return pid;
}

// MARK: - Sealed memory files

int vault_run_memfd(const char *name, const void *bytes, size_t count) {
    int fd = memfd_create(name, MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    const unsigned char *next = bytes;
    size_t left = count;
    while (left > 0) {
        ssize_t written = write(fd, next, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            int error = errno;
            close(fd);
            errno = error;
            return -1;
        }
        next += written;
        left -= (size_t)written;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

// MARK: - Terminals

int vault_run_openpty(int like_fd, int *master_fd, int *slave_fd) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    char name[128];
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, sizeof name) != 0) {
        int error = errno;
        close(master);
        errno = error;
        return -1;
    }
    int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0) {
        int error = errno;
        close(master);
        errno = error;
        return -1;
    }
    struct termios attributes;
    if (like_fd >= 0 && tcgetattr(like_fd, &attributes) == 0) tcsetattr(slave, TCSANOW, &attributes);
    if (like_fd >= 0) vault_run_copy_winsize(like_fd, slave);
    *master_fd = master;
    *slave_fd = slave;
    return 0;
}

int vault_run_copy_winsize(int from_fd, int to_fd) {
    struct winsize size;
    if (ioctl(from_fd, TIOCGWINSZ, &size) != 0) return -1;
    return ioctl(to_fd, TIOCSWINSZ, &size);
}

static struct termios saved_attributes;
static volatile sig_atomic_t saved_fd = -1;

int vault_run_tty_raw(int fd) {
    struct termios attributes;
    if (tcgetattr(fd, &attributes) != 0) return -1;
    saved_attributes = attributes;
    saved_fd = fd;
    cfmakeraw(&attributes);
    if (tcsetattr(fd, TCSAFLUSH, &attributes) != 0) {
        saved_fd = -1;
        return -1;
    }
    return 0;
}

void vault_run_tty_restore(void) {
    int fd = saved_fd;
    if (fd < 0) return;
    saved_fd = -1;
    tcsetattr(fd, TCSANOW, &saved_attributes);
}

void vault_run_wipe(void *bytes, size_t count) { explicit_bzero(bytes, count); }

int vault_run_pipe(int *fds, int nonblocking) { return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0)); }
