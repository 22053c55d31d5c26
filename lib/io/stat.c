/* libtally-io's stat family: stat, lstat, fstat, fstatat (and their 64
 * names), statx, and the __xstat forms older binaries call. A successful
 * call counts POSIX_STATS on the file's record (by path, or by descriptor
 * for fstat and AT_EMPTY_PATH) with its time as metadata time. */
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

int __xstat(int ver, const char *path, struct stat *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);

DECLARE_REAL(stat); DECLARE_REAL(lstat); DECLARE_REAL(fstat); DECLARE_REAL(fstatat);
DECLARE_REAL(stat64); DECLARE_REAL(lstat64); DECLARE_REAL(fstat64); DECLARE_REAL(fstatat64);
DECLARE_REAL(statx); DECLARE_REAL(__xstat); DECLARE_REAL(__lxstat); DECLARE_REAL(__fxstat);
DECLARE_REAL(__xstat64); DECLARE_REAL(__lxstat64); DECLARE_REAL(__fxstat64);

/* path NULL: the descriptor dirfd itself. */
static void on_stat(int dirfd, const char *path, uint64_t t0, uint64_t t1)
{
    if (!io_enter())
        return;
    int32_t rec = 0;
    if (path && *path) {
        rec = io_record_for(dirfd, path);
    } else {
        struct io_fd *s = io_fd_slot(dirfd);
        rec = s ? s->rec : 0;
    }
    if (rec)
        io_count_meta(rec, false, POSIX_STATS, IO_META_OTHER, t0, t1);
    io_leave();
}

#define COUNTED_STAT(dirfd, path, name, args)           \
    do {                                                \
        __typeof__(&name) fn = REAL(name);              \
        if (!io_region)                                 \
            return fn args;                             \
        uint64_t t0 = io_ticks();                         \
        int rc = fn args;                               \
        uint64_t t1 = io_ticks();                         \
        if (rc == 0) /* counted through records.c: errno untouched */ \
            on_stat(dirfd, path, t0, t1);               \
        return rc;                                      \
    } while (0)

IO_EXPORT int stat(const char *path, struct stat *buf)
{
    COUNTED_STAT(AT_FDCWD, path, stat, (path, buf));
}

IO_EXPORT int lstat(const char *path, struct stat *buf)
{
    COUNTED_STAT(AT_FDCWD, path, lstat, (path, buf));
}

IO_EXPORT int fstat(int fd, struct stat *buf)
{
    COUNTED_STAT(fd, NULL, fstat, (fd, buf));
}

IO_EXPORT int fstatat(int dirfd, const char *path, struct stat *buf, int flags)
{
    COUNTED_STAT(dirfd, path, fstatat, (dirfd, path, buf, flags));
}

IO_EXPORT int stat64(const char *path, struct stat64 *buf)
{
    COUNTED_STAT(AT_FDCWD, path, stat64, (path, buf));
}

IO_EXPORT int lstat64(const char *path, struct stat64 *buf)
{
    COUNTED_STAT(AT_FDCWD, path, lstat64, (path, buf));
}

IO_EXPORT int fstat64(int fd, struct stat64 *buf)
{
    COUNTED_STAT(fd, NULL, fstat64, (fd, buf));
}

IO_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags)
{
    COUNTED_STAT(dirfd, path, fstatat64, (dirfd, path, buf, flags));
}

IO_EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
    COUNTED_STAT(dirfd, path, statx, (dirfd, path, flags, mask, buf));
}

IO_EXPORT int __xstat(int ver, const char *path, struct stat *buf)
{
    COUNTED_STAT(AT_FDCWD, path, __xstat, (ver, path, buf));
}

IO_EXPORT int __lxstat(int ver, const char *path, struct stat *buf)
{
    COUNTED_STAT(AT_FDCWD, path, __lxstat, (ver, path, buf));
}

IO_EXPORT int __fxstat(int ver, int fd, struct stat *buf)
{
    COUNTED_STAT(fd, NULL, __fxstat, (ver, fd, buf));
}

IO_EXPORT int __xstat64(int ver, const char *path, struct stat64 *buf)
{
    COUNTED_STAT(AT_FDCWD, path, __xstat64, (ver, path, buf));
}

IO_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *buf)
{
    COUNTED_STAT(AT_FDCWD, path, __lxstat64, (ver, path, buf));
}

IO_EXPORT int __fxstat64(int ver, int fd, struct stat64 *buf)
{
    COUNTED_STAT(fd, NULL, __fxstat64, (ver, fd, buf));
}
