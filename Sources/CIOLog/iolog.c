// The I/O recorder of `stacklab crash-test --power-loss` (see include/iolog.h for how it is configured).
//
// Each replaced function calls the real one and, for a descriptor or path under the watched folder, appends one
// line to the log (and the bytes written to the data file) while holding one lock, so the log's order is the
// order in which the calls took effect. What is logged is what a crash-state replay needs and nothing else:
// - opens with their flags: a write through a descriptor opened O_DSYNC or O_SYNC is on disk when it returns;
// - writes with the file offset they landed at (write and writev: the descriptor's position after the call, less
//   the bytes written, so the lseek before them need not be trusted) and where their bytes are in the data file;
// - lseek, ftruncate, fallocate, fsync, fdatasync, rename, unlink, close;
// - mmap of a watched file, and msync and munmap of such a map: writes through a shared writable map are not
//   seen here, so the replay refuses a durable file that was mapped so (the engines write with pwrite: SQLite,
//   and LMDB without MDB_WRITEMAP; their shared-memory files, -shm and -lock, are rebuilt after a crash).
// Not seen: descriptors made by dup, dup2, dup3 or fcntl(F_DUPFD), pwritev2, and I/O libc makes internally
// (fopen, fwrite); neither engine writes its files so.
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include "iolog.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

// Descriptors above this are passed through unlogged: a save loop holds a handful.
#define MAX_FDS 65536
#define MAX_MAPS 256

enum { UNWATCHED = 0, WATCHED = 1, ACK = 2 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int enabled;
static int log_fd = -1, data_fd = -1;
static long long data_size;
static char watched_dir[PATH_MAX];
static size_t watched_len;
static char ack_path[PATH_MAX];
static unsigned char kinds[MAX_FDS];
static struct {
    void *addr;
    size_t len;
    int fd;
} maps[MAX_MAPS];

// The real functions, found once (the 64-bit names are the same calls on the 64-bit platforms this runs on).
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static off_t (*real_lseek)(int, off_t, int);
static int (*real_ftruncate)(int, off_t);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_posix_fallocate)(int, off_t, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_msync)(void *, size_t, int);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned int);
static int (*real_unlinkat)(int, const char *, int);

static void *find(const char *name) {
    void *symbol = dlsym(RTLD_NEXT, name);
    if (!symbol) {
        fprintf(stderr, "stacklab iolog: libc has no %s\n", name);
        abort();
    }
    return symbol;
}

// The canonical absolute form of `path` relative to `dirfd`: its folder resolved, its last part kept (a file
// being renamed or unlinked may be gone, or not there yet).
static void resolve(int dirfd, const char *path, char *out) {
    char joined[PATH_MAX * 2];
    if (path[0] == '/') {
        snprintf(joined, sizeof joined, "%s", path);
    } else {
        char base[PATH_MAX] = "";
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base)) base[0] = 0;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t n = readlink(link, base, sizeof base - 1);
            base[n > 0 ? n : 0] = 0;
        }
        snprintf(joined, sizeof joined, "%s/%s", base, path);
    }
    char *slash = strrchr(joined, '/');
    char folder[PATH_MAX];
    if (slash && slash != joined) {
        *slash = 0;
        if (realpath(joined, folder)) {
            snprintf(out, PATH_MAX, "%s/%s", folder, slash + 1);
            return;
        }
        *slash = '/';
    }
    snprintf(out, PATH_MAX, "%s", joined);
}

static void encode(const char *path, char *out, size_t size);
static void emit(const char *format, ...);

static void setup(void) {
    real_openat = find("openat");
    real_close = find("close");
    real_write = find("write");
    real_pwrite = find("pwrite64");
    real_writev = find("writev");
    real_pwritev = find("pwritev64");
    real_lseek = find("lseek64");
    real_ftruncate = find("ftruncate64");
    real_fallocate = find("fallocate64");
    real_posix_fallocate = find("posix_fallocate64");
    real_fsync = find("fsync");
    real_fdatasync = find("fdatasync");
    real_mmap = find("mmap64");
    real_munmap = find("munmap");
    real_msync = find("msync");
    real_renameat2 = find("renameat2");
    real_unlinkat = find("unlinkat");
    const char *log = getenv("STACKLAB_IOLOG");
    const char *dir = getenv("STACKLAB_IOLOG_DIR");
    if (!log || !dir || !realpath(dir, watched_dir)) return;
    watched_len = strlen(watched_dir);
    const char *ack = getenv("STACKLAB_IOLOG_ACK");
    if (ack) resolve(AT_FDCWD, ack, ack_path);
    char data[PATH_MAX + 8];
    snprintf(data, sizeof data, "%s.data", log);
    int flags = O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC;
    log_fd = real_openat(AT_FDCWD, log, flags, 0644);
    data_fd = real_openat(AT_FDCWD, data, flags, 0644);
    if (log_fd < 0 || data_fd < 0) {
        fprintf(stderr, "stacklab iolog: cannot create the log %s\n", log);
        abort();
    }
    enabled = 1;
    char dir_field[PATH_MAX * 3], ack_field[PATH_MAX * 3];
    encode(watched_dir, dir_field, sizeof dir_field);
    encode(ack_path, ack_field, sizeof ack_field);
    emit("stacklab-iolog %d dir=%s ack=%s", STACKLAB_IOLOG_FORMAT, dir_field, ack_field);
}

static void init(void) { pthread_once(&once, setup); }

// Percent-encodes what would split a log line (space, tab, newline, %), so a path is one field.
static void encode(const char *path, char *out, size_t size) {
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && j + 4 < size; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '%') {
            j += (size_t)snprintf(out + j, size - j, "%%%02X", *p);
        } else {
            out[j++] = (char)*p;
        }
    }
    out[j] = 0;
}

// Appends one line to the log (callers hold the lock). A log that cannot be written would make every
// crash state a lie, so the process stops.
static void emit(const char *format, ...) {
    char line[PATH_MAX * 7 + 256];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line - 1, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof line - 1) abort();
    line[n++] = '\n';
    if (real_write(log_fd, line, (size_t)n) != n) abort();
}

// Appends bytes to the data file (callers hold the lock) and returns where they start.
static long long store(const void *bytes, size_t count) {
    long long at = data_size;
    if (count && real_write(data_fd, bytes, count) != (ssize_t)count) abort();
    data_size += (long long)count;
    return at;
}

static long long store_iov(const struct iovec *iov, int count, size_t total) {
    long long at = data_size;
    for (int i = 0; i < count && total > 0; i++) {
        size_t part = iov[i].iov_len < total ? iov[i].iov_len : total;
        store(iov[i].iov_base, part);
        total -= part;
    }
    return at;
}

static int kind_of(int fd) {
    if (fd < 0 || fd >= MAX_FDS || !enabled) return UNWATCHED;
    return __atomic_load_n(&kinds[fd], __ATOMIC_ACQUIRE);
}

static int is_watched(const char *path) {
    return enabled && strncmp(path, watched_dir, watched_len) == 0
        && (path[watched_len] == '/' || path[watched_len] == 0);
}

// MARK: - Opening and closing

static int opened(int fd, int flags) {
    if (fd < 0 || fd >= MAX_FDS || !enabled || fd == log_fd || fd == data_fd) return fd;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    int kind = ack_path[0] && strcmp(path, ack_path) == 0 ? ACK : is_watched(path) ? WATCHED : UNWATCHED;
    pthread_mutex_lock(&lock);
    __atomic_store_n(&kinds[fd], (unsigned char)kind, __ATOMIC_RELEASE);
    if (kind == WATCHED) {
        char field[PATH_MAX * 3];
        encode(path, field, sizeof field);
        emit("open fd=%d flags=0x%x path=%s", fd, flags, field);
    }
    pthread_mutex_unlock(&lock);
    return fd;
}

static int open_at(int dirfd, const char *path, int flags, mode_t mode) {
    init();
    return opened(real_openat(dirfd, path, flags, mode), flags);
}

static mode_t mode_argument(int flags, va_list args) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(args, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    return open_at(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    return open_at(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    return open_at(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    return open_at(dirfd, path, flags, mode);
}

// The names a caller built with _FORTIFY_SOURCE reaches.
int __open_2(const char *path, int flags) { return open_at(AT_FDCWD, path, flags, 0); }
int __open64_2(const char *path, int flags) { return open_at(AT_FDCWD, path, flags, 0); }
int __openat_2(int dirfd, const char *path, int flags) { return open_at(dirfd, path, flags, 0); }
int __openat64_2(int dirfd, const char *path, int flags) { return open_at(dirfd, path, flags, 0); }

int creat(const char *path, mode_t mode) { return open_at(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return open_at(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

int close(int fd) {
    init();
    int kind = kind_of(fd);
    if (kind == UNWATCHED) return real_close(fd);
    pthread_mutex_lock(&lock);
    int result = real_close(fd);
    if (result == 0) {
        __atomic_store_n(&kinds[fd], (unsigned char)UNWATCHED, __ATOMIC_RELEASE);
        if (kind == WATCHED) emit("close fd=%d", fd);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

// MARK: - Writing

// Logs a write of `done` bytes at `offset` (callers hold the lock); an acknowledgement file's writes are `ack`s.
static void wrote(int kind, const char *call, int fd, long long offset, long long done, long long at) {
    if (kind == ACK) {
        emit("ack len=%lld at=%lld", done, at);
    } else {
        emit("%s fd=%d off=%lld len=%lld at=%lld", call, fd, offset, done, at);
    }
}

ssize_t write(int fd, const void *bytes, size_t count) {
    init();
    int kind = kind_of(fd);
    if (kind == UNWATCHED) return real_write(fd, bytes, count);
    pthread_mutex_lock(&lock);
    ssize_t done = real_write(fd, bytes, count);
    if (done > 0) {
        int saved = errno;
        long long end = real_lseek(fd, 0, SEEK_CUR);
        wrote(kind, "write", fd, end - done, done, store(bytes, (size_t)done));
        errno = saved;
    }
    pthread_mutex_unlock(&lock);
    return done;
}

static ssize_t positioned_write(int fd, const void *bytes, size_t count, off_t offset) {
    init();
    int kind = kind_of(fd);
    if (kind == UNWATCHED) return real_pwrite(fd, bytes, count, offset);
    pthread_mutex_lock(&lock);
    ssize_t done = real_pwrite(fd, bytes, count, offset);
    if (done > 0) wrote(kind, "pwrite", fd, offset, done, store(bytes, (size_t)done));
    pthread_mutex_unlock(&lock);
    return done;
}

ssize_t pwrite(int fd, const void *bytes, size_t count, off_t offset) {
    return positioned_write(fd, bytes, count, offset);
}

ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) {
    return positioned_write(fd, bytes, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    init();
    int kind = kind_of(fd);
    if (kind == UNWATCHED) return real_writev(fd, iov, count);
    pthread_mutex_lock(&lock);
    ssize_t done = real_writev(fd, iov, count);
    if (done > 0) {
        int saved = errno;
        long long end = real_lseek(fd, 0, SEEK_CUR);
        wrote(kind, "writev", fd, end - done, done, store_iov(iov, count, (size_t)done));
        errno = saved;
    }
    pthread_mutex_unlock(&lock);
    return done;
}

static ssize_t positioned_writev(int fd, const struct iovec *iov, int count, off_t offset) {
    init();
    int kind = kind_of(fd);
    if (kind == UNWATCHED) return real_pwritev(fd, iov, count, offset);
    pthread_mutex_lock(&lock);
    ssize_t done = real_pwritev(fd, iov, count, offset);
    if (done > 0) wrote(kind, "pwritev", fd, offset, done, store_iov(iov, count, (size_t)done));
    pthread_mutex_unlock(&lock);
    return done;
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    return positioned_writev(fd, iov, count, offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off_t offset) {
    return positioned_writev(fd, iov, count, offset);
}

static off_t seek(int fd, off_t offset, int whence) {
    init();
    if (kind_of(fd) != WATCHED) return real_lseek(fd, offset, whence);
    pthread_mutex_lock(&lock);
    off_t result = real_lseek(fd, offset, whence);
    if (result >= 0) emit("lseek fd=%d off=%lld whence=%d result=%lld", fd, (long long)offset, whence, (long long)result);
    pthread_mutex_unlock(&lock);
    return result;
}

off_t lseek(int fd, off_t offset, int whence) { return seek(fd, offset, whence); }
off_t lseek64(int fd, off_t offset, int whence) { return seek(fd, offset, whence); }

// MARK: - Sizes

static int truncate_to(int fd, off_t length) {
    init();
    if (kind_of(fd) != WATCHED) return real_ftruncate(fd, length);
    pthread_mutex_lock(&lock);
    int result = real_ftruncate(fd, length);
    if (result == 0) emit("ftruncate fd=%d len=%lld", fd, (long long)length);
    pthread_mutex_unlock(&lock);
    return result;
}

int ftruncate(int fd, off_t length) { return truncate_to(fd, length); }
int ftruncate64(int fd, off_t length) { return truncate_to(fd, length); }

static int allocate(int fd, int mode, off_t offset, off_t length) {
    init();
    if (kind_of(fd) != WATCHED) return real_fallocate(fd, mode, offset, length);
    pthread_mutex_lock(&lock);
    int result = real_fallocate(fd, mode, offset, length);
    if (result == 0) emit("fallocate fd=%d mode=%d off=%lld len=%lld", fd, mode, (long long)offset, (long long)length);
    pthread_mutex_unlock(&lock);
    return result;
}

int fallocate(int fd, int mode, off_t offset, off_t length) { return allocate(fd, mode, offset, length); }
int fallocate64(int fd, int mode, off_t offset, off_t length) { return allocate(fd, mode, offset, length); }

static int posix_allocate(int fd, off_t offset, off_t length) {
    init();
    if (kind_of(fd) != WATCHED) return real_posix_fallocate(fd, offset, length);
    pthread_mutex_lock(&lock);
    int result = real_posix_fallocate(fd, offset, length);
    if (result == 0) emit("fallocate fd=%d mode=0 off=%lld len=%lld", fd, (long long)offset, (long long)length);
    pthread_mutex_unlock(&lock);
    return result;
}

int posix_fallocate(int fd, off_t offset, off_t length) { return posix_allocate(fd, offset, length); }
int posix_fallocate64(int fd, off_t offset, off_t length) { return posix_allocate(fd, offset, length); }

// MARK: - Syncing

static int sync_file(int fd, int data_only) {
    init();
    if (kind_of(fd) != WATCHED) return data_only ? real_fdatasync(fd) : real_fsync(fd);
    pthread_mutex_lock(&lock);
    int result = data_only ? real_fdatasync(fd) : real_fsync(fd);
    if (result == 0) emit("%s fd=%d", data_only ? "fdatasync" : "fsync", fd);
    pthread_mutex_unlock(&lock);
    return result;
}

int fsync(int fd) { return sync_file(fd, 0); }
int fdatasync(int fd) { return sync_file(fd, 1); }

static void *map(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    init();
    if (kind_of(fd) != WATCHED) return real_mmap(addr, length, prot, flags, fd, offset);
    pthread_mutex_lock(&lock);
    void *result = real_mmap(addr, length, prot, flags, fd, offset);
    if (result != MAP_FAILED) {
        emit(
            "mmap fd=%d off=%lld len=%zu prot=%d flags=%d addr=%p", fd, (long long)offset, length, prot, flags, result);
        for (int i = 0; i < MAX_MAPS; i++) {
            if (!maps[i].addr) {
                maps[i].addr = result;
                maps[i].len = length;
                maps[i].fd = fd;
                break;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return result;
}

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    return map(addr, length, prot, flags, fd, offset);
}

void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    return map(addr, length, prot, flags, fd, offset);
}

// The map of a watched file that holds `addr`, or -1.
static int map_holding(void *addr) {
    for (int i = 0; i < MAX_MAPS; i++) {
        char *start = maps[i].addr;
        if (start && (char *)addr >= start && (char *)addr < start + maps[i].len) return i;
    }
    return -1;
}

int munmap(void *addr, size_t length) {
    init();
    if (!enabled) return real_munmap(addr, length);
    pthread_mutex_lock(&lock);
    int result = real_munmap(addr, length);
    int found = map_holding(addr);
    if (result == 0 && found >= 0) {
        emit("munmap addr=%p len=%zu", addr, length);
        maps[found].addr = NULL;
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int msync(void *addr, size_t length, int flags) {
    init();
    if (!enabled) return real_msync(addr, length, flags);
    pthread_mutex_lock(&lock);
    int result = real_msync(addr, length, flags);
    int found = map_holding(addr);
    if (result == 0 && found >= 0) emit("msync fd=%d addr=%p len=%zu flags=%d", maps[found].fd, addr, length, flags);
    pthread_mutex_unlock(&lock);
    return result;
}

// MARK: - Names

static int rename_at(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    init();
    if (!enabled) return real_renameat2(fromfd, from, tofd, to, flags);
    char source[PATH_MAX], target[PATH_MAX];
    resolve(fromfd, from, source);
    resolve(tofd, to, target);
    if (!is_watched(source) && !is_watched(target)) return real_renameat2(fromfd, from, tofd, to, flags);
    pthread_mutex_lock(&lock);
    int result = real_renameat2(fromfd, from, tofd, to, flags);
    if (result == 0) {
        char a[PATH_MAX * 3], b[PATH_MAX * 3];
        encode(source, a, sizeof a);
        encode(target, b, sizeof b);
        emit("rename from=%s to=%s", a, b);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int rename(const char *from, const char *to) { return rename_at(AT_FDCWD, from, AT_FDCWD, to, 0); }
int renameat(int fromfd, const char *from, int tofd, const char *to) { return rename_at(fromfd, from, tofd, to, 0); }
int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    return rename_at(fromfd, from, tofd, to, flags);
}

static int unlink_at(int dirfd, const char *path, int flags) {
    init();
    if (!enabled) return real_unlinkat(dirfd, path, flags);
    char resolved[PATH_MAX];
    resolve(dirfd, path, resolved);
    if (!is_watched(resolved)) return real_unlinkat(dirfd, path, flags);
    pthread_mutex_lock(&lock);
    int result = real_unlinkat(dirfd, path, flags);
    if (result == 0) {
        char field[PATH_MAX * 3];
        encode(resolved, field, sizeof field);
        emit("unlink path=%s", field);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int unlink(const char *path) { return unlink_at(AT_FDCWD, path, 0); }
int unlinkat(int dirfd, const char *path, int flags) { return unlink_at(dirfd, path, flags); }
