// vault reliability: an LD_PRELOAD shim that records every file-system change made under one
// directory, for the power-loss simulation (scripts/reliability.sh builds it with gcc).
//
// Environment:
//   VAULT_SHIM_DIR  the directory to watch (absolute, resolved: no symbolic links)
//   VAULT_SHIM_LOG  the log file to append records to
//
// Recorded, after the real call succeeded: open/openat (of the directory or a file in it),
// write and pwrite/pwrite64 (with the bytes written and the file offset; format 3 commits in place
// with pwrite), fsync/fdatasync, close, rename/renameat/
// renameat2 (with flags), unlink/unlinkat, linkat, ftruncate. Plus `vault_shim_mark(value)`,
// which a program under the shim calls (found with dlsym) to note that a commit was acknowledged.
//
// Record layout (native byte order): u32 op, i32 fd, i64 a, i64 b, u32 flags, u32 len1, u32 len2,
// u32 len3, then len1 bytes of name1, len2 bytes of name2, len3 bytes of data.
//   OPEN   fd, flags = open flags, name1 = name relative to the directory ("" = the directory)
//   WRITE  fd, a = file offset, data = the bytes written
//   FSYNC  fd            CLOSE fd            TRUNCATE fd, a = length
//   RENAME name1 -> name2, flags = renameat2 flags      UNLINK name1      LINK name1 -> name2
//   MARK   a = value
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { OP_OPEN = 1, OP_WRITE, OP_FSYNC, OP_CLOSE, OP_RENAME, OP_UNLINK, OP_LINK, OP_MARK, OP_TRUNCATE };
enum { MAX_FD = 4096 };

struct record {
    uint32_t op;
    int32_t fd;
    int64_t a, b;
    uint32_t flags, len1, len2, len3;
};

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static char watched[4096];
static size_t watched_length;
static int log_fd = -1;
static char *names[MAX_FD];  // name (relative to the directory) of each watched descriptor

#define REAL(ret, name, ...)                                           \
    static ret (*real_##name)(__VA_ARGS__);                            \
    static void load_##name(void) {                                    \
        if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name);       \
    }
REAL(int, open, const char *, int, ...)
REAL(int, open64, const char *, int, ...)
REAL(int, openat, int, const char *, int, ...)
REAL(int, openat64, int, const char *, int, ...)
REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void *, size_t, off_t)
REAL(int, fsync, int)
REAL(int, fdatasync, int)
REAL(int, close, int)
REAL(int, rename, const char *, const char *)
REAL(int, renameat, int, const char *, int, const char *)
REAL(int, renameat2, int, const char *, int, const char *, unsigned int)
REAL(int, unlink, const char *)
REAL(int, unlinkat, int, const char *, int)
REAL(int, linkat, int, const char *, int, const char *, int)
REAL(int, ftruncate, int, off_t)
REAL(off_t, lseek, int, off_t, int)

__attribute__((constructor)) static void shim_init(void) {
    const char *dir = getenv("VAULT_SHIM_DIR");
    const char *log = getenv("VAULT_SHIM_LOG");
    if (!dir || !log || strlen(dir) >= sizeof watched) return;
    strcpy(watched, dir);
    watched_length = strlen(watched);
    while (watched_length > 1 && watched[watched_length - 1] == '/') watched[--watched_length] = 0;
    load_open();
    log_fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

static void emit(uint32_t op, int fd, int64_t a, int64_t b, uint32_t flags, const char *n1, const char *n2,
                 const void *data, size_t length) {
    if (log_fd < 0) return;
    load_write();
    struct record r = {op, fd, a, b, flags, n1 ? (uint32_t)strlen(n1) : 0, n2 ? (uint32_t)strlen(n2) : 0,
                       (uint32_t)length};
    size_t total = sizeof r + r.len1 + r.len2 + length;
    char *buffer = malloc(total);
    if (!buffer) abort();
    memcpy(buffer, &r, sizeof r);
    if (r.len1) memcpy(buffer + sizeof r, n1, r.len1);
    if (r.len2) memcpy(buffer + sizeof r + r.len1, n2, r.len2);
    if (length) memcpy(buffer + sizeof r + r.len1 + r.len2, data, length);
    size_t done = 0;
    while (done < total) {
        ssize_t n = real_write(log_fd, buffer + done, total - done);
        if (n <= 0) abort();  // a lost record would make the simulation lie
        done += (size_t)n;
    }
    free(buffer);
}

/// The name of `path` (relative to dirfd) inside the watched directory, or NULL.
static const char *watched_name(int dirfd, const char *path, char *out, size_t size) {
    if (!path || log_fd < 0) return NULL;
    if (path[0] == '/') {
        if (strncmp(path, watched, watched_length) != 0) return NULL;
        const char *rest = path + watched_length;
        if (*rest == 0) return strcpy(out, "");
        if (*rest != '/' || strchr(rest + 1, '/')) return NULL;
        if (strlen(rest + 1) >= size) return NULL;
        return strcpy(out, rest + 1);
    }
    if (dirfd >= 0 && dirfd < MAX_FD && names[dirfd] && names[dirfd][0] == 0 && !strchr(path, '/')) {
        if (strlen(path) >= size) return NULL;
        return strcpy(out, path);
    }
    return NULL;
}

static int after_open(int fd, int dirfd, const char *path, int flags) {
    char name[1024];
    if (fd < 0 || fd >= MAX_FD) return fd;
    pthread_mutex_lock(&mutex);
    if (watched_name(dirfd, path, name, sizeof name)) {
        free(names[fd]);
        names[fd] = strdup(name);
        emit(OP_OPEN, fd, 0, 0, (uint32_t)flags, name, NULL, NULL, 0);
    }
    pthread_mutex_unlock(&mutex);
    return fd;
}

static mode_t mode_argument(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_argument(flags, ap);
    va_end(ap);
    load_open();
    return after_open(real_open(path, flags, mode), AT_FDCWD, path, flags);
}

int open64(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_argument(flags, ap);
    va_end(ap);
    load_open64();
    return after_open(real_open64(path, flags, mode), AT_FDCWD, path, flags);
}

int openat(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_argument(flags, ap);
    va_end(ap);
    load_openat();
    return after_open(real_openat(dirfd, path, flags, mode), dirfd, path, flags);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_argument(flags, ap);
    va_end(ap);
    load_openat64();
    return after_open(real_openat64(dirfd, path, flags, mode), dirfd, path, flags);
}

static int is_watched(int fd) { return fd >= 0 && fd < MAX_FD && names[fd] != NULL; }

ssize_t write(int fd, const void *buffer, size_t count) {
    load_write();
    load_lseek();
    if (!is_watched(fd)) return real_write(fd, buffer, count);
    pthread_mutex_lock(&mutex);
    off_t offset = real_lseek(fd, 0, SEEK_CUR);
    ssize_t n = real_write(fd, buffer, count);
    int saved = errno;
    if (n > 0) emit(OP_WRITE, fd, offset, 0, 0, names[fd], NULL, buffer, (size_t)n);
    pthread_mutex_unlock(&mutex);
    errno = saved;
    return n;
}

static ssize_t after_pwrite(int fd, const void *buffer, ssize_t n, off_t offset) {
    int saved = errno;
    if (n > 0) emit(OP_WRITE, fd, offset, 0, 0, names[fd], NULL, buffer, (size_t)n);
    errno = saved;
    return n;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    load_pwrite();
    if (!is_watched(fd)) return real_pwrite(fd, buffer, count, offset);
    pthread_mutex_lock(&mutex);
    ssize_t n = after_pwrite(fd, buffer, real_pwrite(fd, buffer, count, offset), offset);
    pthread_mutex_unlock(&mutex);
    return n;
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    load_pwrite64();
    if (!is_watched(fd)) return real_pwrite64(fd, buffer, count, offset);
    pthread_mutex_lock(&mutex);
    ssize_t n = after_pwrite(fd, buffer, real_pwrite64(fd, buffer, count, offset), offset);
    pthread_mutex_unlock(&mutex);
    return n;
}

static int synced(int fd, int result) {
    if (result == 0 && is_watched(fd)) {
        pthread_mutex_lock(&mutex);
        emit(OP_FSYNC, fd, 0, 0, 0, names[fd], NULL, NULL, 0);
        pthread_mutex_unlock(&mutex);
    }
    return result;
}

int fsync(int fd) {
    load_fsync();
    return synced(fd, real_fsync(fd));
}

int fdatasync(int fd) {
    load_fdatasync();
    return synced(fd, real_fdatasync(fd));
}

int close(int fd) {
    load_close();
    if (!is_watched(fd)) return real_close(fd);
    pthread_mutex_lock(&mutex);
    int result = real_close(fd);
    int saved = errno;
    emit(OP_CLOSE, fd, 0, 0, 0, names[fd], NULL, NULL, 0);
    free(names[fd]);
    names[fd] = NULL;
    pthread_mutex_unlock(&mutex);
    errno = saved;
    return result;
}

static int after_rename(int result, int olddir, const char *old, int newdir, const char *new, unsigned flags) {
    char a[1024], b[1024];
    if (result != 0) return result;
    pthread_mutex_lock(&mutex);
    if (watched_name(olddir, old, a, sizeof a) && watched_name(newdir, new, b, sizeof b))
        emit(OP_RENAME, -1, 0, 0, flags, a, b, NULL, 0);
    pthread_mutex_unlock(&mutex);
    return result;
}

int rename(const char *old, const char *new) {
    load_rename();
    return after_rename(real_rename(old, new), AT_FDCWD, old, AT_FDCWD, new, 0);
}

int renameat(int olddir, const char *old, int newdir, const char *new) {
    load_renameat();
    return after_rename(real_renameat(olddir, old, newdir, new), olddir, old, newdir, new, 0);
}

int renameat2(int olddir, const char *old, int newdir, const char *new, unsigned int flags) {
    load_renameat2();
    return after_rename(real_renameat2(olddir, old, newdir, new, flags), olddir, old, newdir, new, flags);
}

static int after_unlink(int result, int dirfd, const char *path) {
    char a[1024];
    if (result != 0) return result;
    pthread_mutex_lock(&mutex);
    if (watched_name(dirfd, path, a, sizeof a)) emit(OP_UNLINK, -1, 0, 0, 0, a, NULL, NULL, 0);
    pthread_mutex_unlock(&mutex);
    return result;
}

int unlink(const char *path) {
    load_unlink();
    return after_unlink(real_unlink(path), AT_FDCWD, path);
}

int unlinkat(int dirfd, const char *path, int flags) {
    load_unlinkat();
    return after_unlink(real_unlinkat(dirfd, path, flags), dirfd, path);
}

int linkat(int olddir, const char *old, int newdir, const char *new, int flags) {
    char a[1024], b[1024];
    load_linkat();
    int result = real_linkat(olddir, old, newdir, new, flags);
    if (result != 0) return result;
    pthread_mutex_lock(&mutex);
    if (watched_name(olddir, old, a, sizeof a) && watched_name(newdir, new, b, sizeof b))
        emit(OP_LINK, -1, 0, 0, 0, a, b, NULL, 0);
    pthread_mutex_unlock(&mutex);
    return result;
}

int ftruncate(int fd, off_t length) {
    load_ftruncate();
    int result = real_ftruncate(fd, length);
    if (result == 0 && is_watched(fd)) {
        pthread_mutex_lock(&mutex);
        emit(OP_TRUNCATE, fd, length, 0, 0, names[fd], NULL, NULL, 0);
        pthread_mutex_unlock(&mutex);
    }
    return result;
}

/// Notes in the log that the program acknowledged something (a commit's generation).
void vault_shim_mark(int64_t value) {
    pthread_mutex_lock(&mutex);
    emit(OP_MARK, -1, value, 0, 0, NULL, NULL, NULL, 0);
    pthread_mutex_unlock(&mutex);
}
