/* libtally-io's STDIO wrappers: fopen, fopen64, fdopen, fclose, fread,
 * fwrite, fprintf, vfprintf, printf, fputs, fgets, fgetc/getc, fputc/putc,
 * fseek, fflush (and glibc's fortified forms, and the _unlocked forms of
 * fread, fwrite, fputs, fgets, fgetc, fputc; putc_unlocked and
 * getc_unlocked are macros that reach no function: not seen). A stream's record is kept on
 * its descriptor's slot; stdin, stdout and stderr count under <STDIN>,
 * <STDOUT> and <STDERR> as in Darshan. The writes stdio makes underneath
 * are glibc-internal calls: they are not counted again as POSIX. */
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* glibc may define these as macros (bits/stdio.h) when optimizing. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fputc_unlocked
#undef fgetc_unlocked

int __fprintf_chk(FILE *fp, int flag, const char *format, ...);
int __printf_chk(int flag, const char *format, ...);
int __vfprintf_chk(FILE *fp, int flag, const char *format, va_list ap);
char *__fgets_chk(char *buf, size_t size, int n, FILE *fp);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *fp);
int _IO_getc(FILE *fp);
int _IO_putc(int c, FILE *fp);

DECLARE_REAL(fopen); DECLARE_REAL(fopen64); DECLARE_REAL(fdopen); DECLARE_REAL(fclose);
DECLARE_REAL(fread); DECLARE_REAL(fwrite); DECLARE_REAL(vfprintf); DECLARE_REAL(__vfprintf_chk);
DECLARE_REAL(fputs); DECLARE_REAL(fgets); DECLARE_REAL(__fgets_chk); DECLARE_REAL(__fread_chk);
DECLARE_REAL(fgetc); DECLARE_REAL(getc); DECLARE_REAL(_IO_getc); DECLARE_REAL(fputc);
DECLARE_REAL(putc); DECLARE_REAL(_IO_putc); DECLARE_REAL(fseek); DECLARE_REAL(fseeko);
DECLARE_REAL(fseeko64); DECLARE_REAL(ftello64); DECLARE_REAL(fflush);
DECLARE_REAL(fread_unlocked); DECLARE_REAL(fwrite_unlocked); DECLARE_REAL(fputs_unlocked);
DECLARE_REAL(fgets_unlocked); DECLARE_REAL(fgetc_unlocked); DECLARE_REAL(fputc_unlocked);

/* The record of the stream on FD (taking <STDIN>... at first use). */
static int32_t stream_record(int fd, struct io_fd **slot)
{
    static const char *const std_names[] = {"<STDIN>", "<STDOUT>", "<STDERR>"};
    struct io_fd *s = io_fd_slot(fd);
    *slot = s;
    if (!s)
        return 0;
    if (!s->srec && fd <= 2) { /* redirected to a file: that file; else <STDOUT>... */
        int32_t file = s->rec ? s->rec : io_record_of_inherited(fd, s);
        s->srec = file ? file : io_record_for_abs(std_names[fd]);
    }
    return s->srec;
}

static void on_stdio_open(FILE *fp, const char *path, int fdopened, uint64_t t0, uint64_t t1,
                          const char *mode)
{
    if (!fp || !io_enter())
        return;
    int fd = fileno_unlocked(fp);
    struct io_fd *s = io_fd_slot(fd);
    int32_t rec = 0;
    if (path)
        rec = io_record_for(AT_FDCWD, path);
    else if (s && s->rec)
        rec = s->rec; /* fdopen of a descriptor opened under the helper: its file */
    if (s) {
        s->srec = rec;
        s->soffset = 0;
        if (mode[0] == 'a')
            s->soffset = REAL(ftello64)(fp);
    }
    if (rec)
        io_count_meta(rec, true, fdopened ? STDIO_FDOPENS : STDIO_OPENS, IO_META_OPEN, t0, t1);
    io_leave();
}

IO_EXPORT FILE *fopen(const char *path, const char *mode)
{
    if (!io_region)
        return REAL(fopen)(path, mode);
    uint64_t t0 = io_ticks();
    FILE *fp = REAL(fopen)(path, mode);
    uint64_t t1 = io_ticks();
    int saved = errno;
    on_stdio_open(fp, path, 0, t0, t1, mode);
    errno = saved;
    return fp;
}

IO_EXPORT FILE *fopen64(const char *path, const char *mode)
{
    if (!io_region)
        return REAL(fopen64)(path, mode);
    uint64_t t0 = io_ticks();
    FILE *fp = REAL(fopen64)(path, mode);
    uint64_t t1 = io_ticks();
    int saved = errno;
    on_stdio_open(fp, path, 0, t0, t1, mode);
    errno = saved;
    return fp;
}

IO_EXPORT FILE *fdopen(int fd, const char *mode)
{
    if (!io_region)
        return REAL(fdopen)(fd, mode);
    uint64_t t0 = io_ticks();
    FILE *fp = REAL(fdopen)(fd, mode);
    uint64_t t1 = io_ticks();
    int saved = errno;
    on_stdio_open(fp, NULL, 1, t0, t1, mode);
    errno = saved;
    return fp;
}

IO_EXPORT int fclose(FILE *fp)
{
    if (!io_region)
        return REAL(fclose)(fp);
    int fd = fileno_unlocked(fp);
    uint64_t t0 = io_ticks();
    int rc = REAL(fclose)(fp);
    uint64_t t1 = io_ticks();
    int saved = errno;
    if (io_enter()) {
        struct io_fd *s = io_fd_slot(fd);
        if (s && s->srec)
            io_count_meta(s->srec, true, -1, IO_META_CLOSE, t0, t1);
        if (s)
            s->srec = s->rec = s->probed = 0; /* the descriptor is closed too */
        io_leave();
    }
    errno = saved;
    return rc;
}

static void on_stdio_rw(FILE *fp, enum io_op op, int64_t bytes, uint64_t t0, uint64_t t1)
{
    if (bytes < 0 || !io_enter())
        return;
    struct io_fd *s;
    int32_t rec = stream_record(fileno_unlocked(fp), &s);
    if (rec) {
        io_count_rw(rec, true, op, s->soffset, bytes, t0, t1);
        s->soffset += bytes;
    } else {
        io_count_other_fd(op, bytes);
    }
    io_leave();
}

/* Call, time and count a stream operation moving BYTES_EXPR bytes (computed
 * from `got`) when OK_EXPR holds. */
#define COUNTED_STREAM(type, fp, op, name, args, ok_expr, bytes_expr) \
    do {                                                              \
        __typeof__(&name) fn = REAL(name);                            \
        if (!io_region)                                               \
            return fn args;                                           \
        uint64_t t0 = io_ticks();                                       \
        type got = fn args;                                           \
        uint64_t t1 = io_ticks();                                       \
        int saved = errno;                                            \
        if (ok_expr)                                                  \
            on_stdio_rw(fp, op, (int64_t)(bytes_expr), t0, t1);       \
        errno = saved;                                                \
        return got;                                                   \
    } while (0)

IO_EXPORT size_t fread(void *ptr, size_t size, size_t n, FILE *fp)
{
    COUNTED_STREAM(size_t, fp, IO_READ, fread, (ptr, size, n, fp), 1, got * size);
}

IO_EXPORT size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *fp)
{
    COUNTED_STREAM(size_t, fp, IO_READ, __fread_chk, (ptr, ptrlen, size, n, fp), 1, got * size);
}

IO_EXPORT size_t fwrite(const void *ptr, size_t size, size_t n, FILE *fp)
{
    COUNTED_STREAM(size_t, fp, IO_WRITE, fwrite, (ptr, size, n, fp), 1, got * size);
}

/* The _unlocked forms (gnulib's unlocked-io, used by coreutils and others). */
IO_EXPORT size_t fread_unlocked(void *ptr, size_t size, size_t n, FILE *fp)
{
    COUNTED_STREAM(size_t, fp, IO_READ, fread_unlocked, (ptr, size, n, fp), 1, got * size);
}

IO_EXPORT size_t fwrite_unlocked(const void *ptr, size_t size, size_t n, FILE *fp)
{
    COUNTED_STREAM(size_t, fp, IO_WRITE, fwrite_unlocked, (ptr, size, n, fp), 1, got * size);
}

IO_EXPORT int fputs_unlocked(const char *s, FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_WRITE, fputs_unlocked, (s, fp), got >= 0, strlen(s));
}

IO_EXPORT char *fgets_unlocked(char *buf, int n, FILE *fp)
{
    COUNTED_STREAM(char *, fp, IO_READ, fgets_unlocked, (buf, n, fp), got != NULL, strlen(got));
}

IO_EXPORT int fgetc_unlocked(FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_READ, fgetc_unlocked, (fp), got != EOF, 1);
}

IO_EXPORT int fputc_unlocked(int c, FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_WRITE, fputc_unlocked, (c, fp), got != EOF, 1);
}

IO_EXPORT int vfprintf(FILE *fp, const char *format, va_list ap)
{
    COUNTED_STREAM(int, fp, IO_WRITE, vfprintf, (fp, format, ap), got >= 0, got);
}

IO_EXPORT int __vfprintf_chk(FILE *fp, int flag, const char *format, va_list ap)
{
    COUNTED_STREAM(int, fp, IO_WRITE, __vfprintf_chk, (fp, flag, format, ap), got >= 0, got);
}

IO_EXPORT int fprintf(FILE *fp, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int got = vfprintf(fp, format, ap);
    va_end(ap);
    return got;
}

IO_EXPORT int __fprintf_chk(FILE *fp, int flag, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int got = __vfprintf_chk(fp, flag, format, ap);
    va_end(ap);
    return got;
}

IO_EXPORT int printf(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int got = vfprintf(stdout, format, ap);
    va_end(ap);
    return got;
}

IO_EXPORT int __printf_chk(int flag, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int got = __vfprintf_chk(stdout, flag, format, ap);
    va_end(ap);
    return got;
}

IO_EXPORT int fputs(const char *s, FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_WRITE, fputs, (s, fp), got >= 0, strlen(s));
}

IO_EXPORT char *fgets(char *buf, int n, FILE *fp)
{
    COUNTED_STREAM(char *, fp, IO_READ, fgets, (buf, n, fp), got != NULL, strlen(got));
}

IO_EXPORT char *__fgets_chk(char *buf, size_t size, int n, FILE *fp)
{
    COUNTED_STREAM(char *, fp, IO_READ, __fgets_chk, (buf, size, n, fp), got != NULL, strlen(got));
}

IO_EXPORT int fgetc(FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_READ, fgetc, (fp), got != EOF, 1);
}

IO_EXPORT int getc(FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_READ, getc, (fp), got != EOF, 1);
}

IO_EXPORT int _IO_getc(FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_READ, _IO_getc, (fp), got != EOF, 1);
}

IO_EXPORT int fputc(int c, FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_WRITE, fputc, (c, fp), got != EOF, 1);
}

IO_EXPORT int putc(int c, FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_WRITE, putc, (c, fp), got != EOF, 1);
}

IO_EXPORT int _IO_putc(int c, FILE *fp)
{
    COUNTED_STREAM(int, fp, IO_WRITE, _IO_putc, (c, fp), got != EOF, 1);
}

static void on_stdio_meta(FILE *fp, int counter, uint64_t t0, uint64_t t1, bool seek)
{
    if (!fp || !io_enter())
        return;
    struct io_fd *s;
    int32_t rec = stream_record(fileno_unlocked(fp), &s);
    if (rec) {
        if (seek)
            s->soffset = REAL(ftello64)(fp);
        io_count_meta(rec, true, counter, IO_META_OTHER, t0, t1);
    }
    io_leave();
}

#define COUNTED_STREAM_META(fp, counter, seek, name, args) \
    do {                                                   \
        __typeof__(&name) fn = REAL(name);                 \
        if (!io_region)                                    \
            return fn args;                                \
        uint64_t t0 = io_ticks();                            \
        int rc = fn args;                                  \
        uint64_t t1 = io_ticks();                            \
        int saved = errno;                                 \
        if (rc == 0)                                       \
            on_stdio_meta(fp, counter, t0, t1, seek);      \
        errno = saved;                                     \
        return rc;                                         \
    } while (0)

IO_EXPORT int fseek(FILE *fp, long offset, int whence)
{
    COUNTED_STREAM_META(fp, STDIO_SEEKS, true, fseek, (fp, offset, whence));
}

IO_EXPORT int fseeko(FILE *fp, off_t offset, int whence)
{
    COUNTED_STREAM_META(fp, STDIO_SEEKS, true, fseeko, (fp, offset, whence));
}

IO_EXPORT int fseeko64(FILE *fp, off64_t offset, int whence)
{
    COUNTED_STREAM_META(fp, STDIO_SEEKS, true, fseeko64, (fp, offset, whence));
}

IO_EXPORT int fflush(FILE *fp)
{
    COUNTED_STREAM_META(fp, STDIO_FLUSHES, false, fflush, (fp));
}
