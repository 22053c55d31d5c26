/* libtally-io's POSIX wrappers: open, open64, openat, creat (and glibc's
 * fortified __open_2 forms), close, read, write, pread, pwrite, readv,
 * writev, preadv, pwritev, lseek, fsync, fdatasync, dup, dup2, dup3, mmap
 * of files, copy_file_range and sendfile (a read and a write); chdir/fchdir
 * keep relative paths resolvable. Each calls the
 * next definition, then counts what happened (docs/io.md); errno is kept
 * (the counting through records.c never sets it: the hot wrappers do not
 * save it). */
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t nbytes, off64_t offset, size_t buflen);

DECLARE_REAL(open); DECLARE_REAL(open64); DECLARE_REAL(openat); DECLARE_REAL(openat64);
DECLARE_REAL(creat); DECLARE_REAL(creat64); DECLARE_REAL(__open_2); DECLARE_REAL(__open64_2);
DECLARE_REAL(__openat_2); DECLARE_REAL(__openat64_2); DECLARE_REAL(close);
DECLARE_REAL(read); DECLARE_REAL(write); DECLARE_REAL(pread); DECLARE_REAL(pread64);
DECLARE_REAL(pwrite); DECLARE_REAL(pwrite64); DECLARE_REAL(readv); DECLARE_REAL(writev);
DECLARE_REAL(preadv); DECLARE_REAL(preadv64); DECLARE_REAL(pwritev); DECLARE_REAL(pwritev64);
DECLARE_REAL(__read_chk); DECLARE_REAL(__pread_chk); DECLARE_REAL(__pread64_chk);
DECLARE_REAL(lseek); DECLARE_REAL(lseek64); DECLARE_REAL(fsync); DECLARE_REAL(fdatasync);
DECLARE_REAL(dup); DECLARE_REAL(dup2); DECLARE_REAL(dup3); DECLARE_REAL(mmap);
DECLARE_REAL(mmap64); DECLARE_REAL(chdir); DECLARE_REAL(fchdir);
DECLARE_REAL(copy_file_range); DECLARE_REAL(sendfile);

/* ---- what each kind of call counts ---- */

static void on_open(int fd, int dirfd, const char *path, uint64_t t0, uint64_t t1)
{
    if (fd < 0 || !io_enter())
        return;
    int32_t rec = io_record_for(dirfd, path);
    struct io_fd *s = io_fd_slot(fd);
    if (s) {
        s->rec = rec;
        s->srec = 0;
        s->offset = s->soffset = 0;
        s->probed = 1;
    }
    io_count_meta(rec, false, POSIX_OPENS, IO_META_OPEN, t0, t1);
    io_leave();
}

/* offset < 0: at the descriptor's offset, which then moves. */
static void on_rw(int fd, enum io_op op, int64_t offset, ssize_t done, uint64_t t0, uint64_t t1)
{
    if (done < 0 || !io_enter())
        return;
    struct io_fd *s = io_fd_slot(fd);
    if (s && (s->rec || io_record_of_inherited(fd, s))) {
        int64_t at = offset >= 0 ? offset : s->offset;
        io_count_rw(s->rec, false, op, at, done, t0, t1);
        if (offset < 0)
            s->offset = at + done;
    } else {
        io_count_other_fd(op, done);
    }
    io_leave();
}

static void on_meta(int fd, int counter, uint64_t t0, uint64_t t1)
{
    if (!io_enter())
        return;
    struct io_fd *s = io_fd_slot(fd);
    if (s && s->rec)
        io_count_meta(s->rec, false, counter, IO_META_OTHER, t0, t1);
    io_leave();
}

static void on_dup(int from, int to)
{
    if (to < 0 || !io_enter())
        return;
    struct io_fd *a = io_fd_slot(from), *b = io_fd_slot(to);
    if (b) {
        b->rec = a ? a->rec : 0;
        b->srec = 0;
        b->offset = a ? a->offset : 0;
        b->probed = a ? a->probed : 0;
    }
    if (a && a->rec)
        io_count_meta(a->rec, false, POSIX_DUPS, IO_META_OTHER, 0, 0);
    io_leave();
}

#define OPEN_MODE(flags, mode)                          \
    do {                                                \
        if ((flags) & (O_CREAT | O_TMPFILE)) {          \
            va_list ap;                                 \
            va_start(ap, flags);                        \
            mode = va_arg(ap, int);                     \
            va_end(ap);                                 \
        }                                               \
    } while (0)

/* The common body of the open family: call, time, count, keep errno. */
#define COUNTED_OPEN(dirfd, path, name, args)           \
    do {                                                \
        __typeof__(&name) fn = REAL(name);              \
        if (!io_region)                                 \
            return fn args;                             \
        uint64_t t0 = io_ticks();                         \
        int fd = fn args;                               \
        uint64_t t1 = io_ticks();                         \
        on_open(fd, dirfd, path, t0, t1);               \
        return fd;                                      \
    } while (0)

IO_EXPORT int open(const char *path, int flags, ...)
{
    int mode = 0;
    OPEN_MODE(flags, mode);
    COUNTED_OPEN(AT_FDCWD, path, open, (path, flags, mode));
}

IO_EXPORT int open64(const char *path, int flags, ...)
{
    int mode = 0;
    OPEN_MODE(flags, mode);
    COUNTED_OPEN(AT_FDCWD, path, open64, (path, flags, mode));
}

IO_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    int mode = 0;
    OPEN_MODE(flags, mode);
    COUNTED_OPEN(dirfd, path, openat, (dirfd, path, flags, mode));
}

IO_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    int mode = 0;
    OPEN_MODE(flags, mode);
    COUNTED_OPEN(dirfd, path, openat64, (dirfd, path, flags, mode));
}

IO_EXPORT int creat(const char *path, mode_t mode)
{
    COUNTED_OPEN(AT_FDCWD, path, creat, (path, mode));
}

IO_EXPORT int creat64(const char *path, mode_t mode)
{
    COUNTED_OPEN(AT_FDCWD, path, creat64, (path, mode));
}

IO_EXPORT int __open_2(const char *path, int flags)
{
    COUNTED_OPEN(AT_FDCWD, path, __open_2, (path, flags));
}

IO_EXPORT int __open64_2(const char *path, int flags)
{
    COUNTED_OPEN(AT_FDCWD, path, __open64_2, (path, flags));
}

IO_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    COUNTED_OPEN(dirfd, path, __openat_2, (dirfd, path, flags));
}

IO_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    COUNTED_OPEN(dirfd, path, __openat64_2, (dirfd, path, flags));
}

IO_EXPORT int close(int fd)
{
    if (!io_region)
        return REAL(close)(fd);
    uint64_t t0 = io_ticks();
    int rc = REAL(close)(fd);
    uint64_t t1 = io_ticks();
    if (io_enter()) {
        struct io_fd *s = io_fd_slot(fd);
        if (s && s->rec && rc == 0)
            io_count_meta(s->rec, false, -1, IO_META_CLOSE, t0, t1);
        if (s)
            s->rec = s->srec = s->probed = 0;
        io_leave();
    }
    return rc;
}

/* The common body of reads and writes. */
#define COUNTED_RW(fd, op, offset, name, args)          \
    do {                                                \
        __typeof__(&name) fn = REAL(name);              \
        if (!io_region)                                 \
            return fn args;                             \
        uint64_t t0 = io_ticks();                         \
        ssize_t done = fn args;                         \
        uint64_t t1 = io_ticks();                         \
        on_rw(fd, op, offset, done, t0, t1);            \
        return done;                                    \
    } while (0)

IO_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    COUNTED_RW(fd, IO_READ, -1, read, (fd, buf, n));
}

IO_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    COUNTED_RW(fd, IO_READ, -1, __read_chk, (fd, buf, n, buflen));
}

IO_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    COUNTED_RW(fd, IO_WRITE, -1, write, (fd, buf, n));
}

IO_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t offset)
{
    COUNTED_RW(fd, IO_READ, offset, pread, (fd, buf, n, offset));
}

IO_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t offset)
{
    COUNTED_RW(fd, IO_READ, offset, pread64, (fd, buf, n, offset));
}

IO_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t offset, size_t buflen)
{
    COUNTED_RW(fd, IO_READ, offset, __pread_chk, (fd, buf, n, offset, buflen));
}

IO_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t offset, size_t buflen)
{
    COUNTED_RW(fd, IO_READ, offset, __pread64_chk, (fd, buf, n, offset, buflen));
}

IO_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    COUNTED_RW(fd, IO_WRITE, offset, pwrite, (fd, buf, n, offset));
}

IO_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t offset)
{
    COUNTED_RW(fd, IO_WRITE, offset, pwrite64, (fd, buf, n, offset));
}

IO_EXPORT ssize_t readv(int fd, const struct iovec *iov, int count)
{
    COUNTED_RW(fd, IO_READ, -1, readv, (fd, iov, count));
}

IO_EXPORT ssize_t writev(int fd, const struct iovec *iov, int count)
{
    COUNTED_RW(fd, IO_WRITE, -1, writev, (fd, iov, count));
}

IO_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int count, off_t offset)
{
    COUNTED_RW(fd, IO_READ, offset, preadv, (fd, iov, count, offset));
}

IO_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int count, off64_t offset)
{
    COUNTED_RW(fd, IO_READ, offset, preadv64, (fd, iov, count, offset));
}

IO_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset)
{
    COUNTED_RW(fd, IO_WRITE, offset, pwritev, (fd, iov, count, offset));
}

IO_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int count, off64_t offset)
{
    COUNTED_RW(fd, IO_WRITE, offset, pwritev64, (fd, iov, count, offset));
}

/* Copies inside the kernel (cat and cp use them between regular files):
 * a read of the source and a write of the destination, each of the bytes
 * copied, at the given offsets or the descriptors' own. */
static void on_copy(int in, const off64_t *in_at, int out, const off64_t *out_at, ssize_t done,
                    uint64_t t0, uint64_t t1)
{
    on_rw(in, IO_READ, in_at ? *in_at - (done > 0 ? done : 0) : -1, done, t0, t1);
    on_rw(out, IO_WRITE, out_at ? *out_at - (done > 0 ? done : 0) : -1, done, t0, t1);
}

IO_EXPORT ssize_t copy_file_range(int in, off64_t *in_at, int out, off64_t *out_at, size_t len,
                                  unsigned int flags)
{
    __typeof__(&copy_file_range) fn = REAL(copy_file_range);
    if (!io_region)
        return fn(in, in_at, out, out_at, len, flags);
    uint64_t t0 = io_ticks();
    ssize_t done = fn(in, in_at, out, out_at, len, flags);
    uint64_t t1 = io_ticks();
    int saved = errno;
    on_copy(in, in_at, out, out_at, done, t0, t1);
    errno = saved;
    return done;
}

IO_EXPORT ssize_t sendfile(int out, int in, off_t *in_at, size_t len)
{
    __typeof__(&sendfile) fn = REAL(sendfile);
    if (!io_region)
        return fn(out, in, in_at, len);
    uint64_t t0 = io_ticks();
    ssize_t done = fn(out, in, in_at, len);
    uint64_t t1 = io_ticks();
    int saved = errno;
    off64_t at = in_at ? *in_at : 0;
    on_copy(in, in_at ? &at : NULL, out, NULL, done, t0, t1);
    errno = saved;
    return done;
}

static off64_t counted_seek(int fd, off64_t got, uint64_t t0, uint64_t t1)
{
    int saved = errno;
    if (got >= 0 && io_enter()) {
        struct io_fd *s = io_fd_slot(fd);
        if (s && s->rec) {
            s->offset = got;
            io_count_meta(s->rec, false, POSIX_SEEKS, IO_META_OTHER, t0, t1);
        }
        io_leave();
    }
    errno = saved;
    return got;
}

IO_EXPORT off_t lseek(int fd, off_t offset, int whence)
{
    if (!io_region)
        return REAL(lseek)(fd, offset, whence);
    uint64_t t0 = io_ticks();
    off_t got = REAL(lseek)(fd, offset, whence);
    return (off_t)counted_seek(fd, got, t0, io_ticks());
}

IO_EXPORT off64_t lseek64(int fd, off64_t offset, int whence)
{
    if (!io_region)
        return REAL(lseek64)(fd, offset, whence);
    uint64_t t0 = io_ticks();
    off64_t got = REAL(lseek64)(fd, offset, whence);
    return counted_seek(fd, got, t0, io_ticks());
}

#define COUNTED_META(fd, counter, name, args)           \
    do {                                                \
        __typeof__(&name) fn = REAL(name);              \
        if (!io_region)                                 \
            return fn args;                             \
        uint64_t t0 = io_ticks();                         \
        int rc = fn args;                               \
        uint64_t t1 = io_ticks();                         \
        int saved = errno;                              \
        if (rc == 0)                                    \
            on_meta(fd, counter, t0, t1);               \
        errno = saved;                                  \
        return rc;                                      \
    } while (0)

IO_EXPORT int fsync(int fd)
{
    COUNTED_META(fd, POSIX_FSYNCS, fsync, (fd));
}

IO_EXPORT int fdatasync(int fd)
{
    COUNTED_META(fd, POSIX_FDSYNCS, fdatasync, (fd));
}

IO_EXPORT int dup(int fd)
{
    int got = REAL(dup)(fd);
    if (io_region) {
        int saved = errno;
        on_dup(fd, got);
        errno = saved;
    }
    return got;
}

IO_EXPORT int dup2(int fd, int to)
{
    int got = REAL(dup2)(fd, to);
    if (io_region && fd != to) {
        int saved = errno;
        on_dup(fd, got);
        errno = saved;
    }
    return got;
}

IO_EXPORT int dup3(int fd, int to, int flags)
{
    int got = REAL(dup3)(fd, to, flags);
    if (io_region) {
        int saved = errno;
        on_dup(fd, got);
        errno = saved;
    }
    return got;
}

static void on_mmap(void *got, int flags, int fd)
{
    if (got == MAP_FAILED || (flags & MAP_ANONYMOUS) || fd < 0)
        return;
    int saved = errno;
    on_meta(fd, POSIX_MMAPS, 0, 0);
    errno = saved;
}

IO_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
    void *got = REAL(mmap)(addr, len, prot, flags, fd, offset);
    if (io_region)
        on_mmap(got, flags, fd);
    return got;
}

IO_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t offset)
{
    void *got = REAL(mmap64)(addr, len, prot, flags, fd, offset);
    if (io_region)
        on_mmap(got, flags, fd);
    return got;
}

IO_EXPORT int chdir(const char *path)
{
    int rc = REAL(chdir)(path);
    io_cwd_changed();
    return rc;
}

IO_EXPORT int fchdir(int fd)
{
    int rc = REAL(fchdir)(fd);
    io_cwd_changed();
    return rc;
}
