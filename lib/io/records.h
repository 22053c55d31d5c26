/* Internal to libtally-io: the files of this process image and their
 * counters (records.c; the metadata counts inline, below), above region.h. */
#ifndef TALLY_LIB_IO_RECORDS_H
#define TALLY_LIB_IO_RECORDS_H

#include "region.h"

#include <sys/single_threaded.h>

/* Called at the start of an image run under valgrind's memcheck: a path is
 * then scanned byte by byte, never past its NUL (the blocks read whole
 * otherwise pass it inside its page: memcheck would report each such read
 * as an error of the program's, and fail it under --error-exitcode). */
void io_scan_exact(void);

/* The record of PATH (relative to DIRFD as openat takes it), taken at its
 * first sight; the incomplete record when the table is full. 1-based. */
int32_t io_record_for(int dirfd, const char *path);
/* A descriptor the helper did not see opened (inherited across exec, as
 * `prog > out.txt` gives): its file's record, looked up once through
 * /proc/self/fd; 0 for a pipe, a socket or anything not a path. */
int32_t io_record_of_inherited(int fd, struct io_fd *slot);
/* The record of an absolute, already normal path. */
int32_t io_record_for_abs(const char *abs);
static inline struct tally_io_record *io_rec(int32_t rec)
{
    return tally_io_record_at(io_region, (uint32_t)(rec - 1));
}
/* Forgets the path → record table (a forked child rebuilds it). */
void io_records_reset(void);
/* The current directory changed (chdir, fchdir). */
void io_cwd_changed(void);

/* Counter updates, each under the record's lock. */
enum io_op { IO_READ = 1, IO_WRITE = 2 };
void io_count_rw(int32_t rec, bool stdio, enum io_op op, int64_t offset, int64_t bytes,
                 uint64_t t0, uint64_t t1);

/* The record's spin lock, taken only when the process may have more than
 * one thread: glibc's __libc_single_threaded stays true until the first
 * pthread_create (a thread made by a raw clone is not seen). With one
 * thread nothing can race: a signal handler that interrupts an update is
 * kept out by the busy guard (region.h), and the monitor reads without the
 * lock. The locked exchange was half of the helper's time in a stat. */
static inline bool io_record_lock(struct tally_io_record *r)
{
    if (__libc_single_threaded)
        return false;
    while (__atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&r->lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    return true;
}

static inline void io_record_unlock(struct tally_io_record *r, bool locked)
{
    if (locked)
        __atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE);
}

static inline void io_first_time(int64_t *c, uint64_t t)
{
    if (*c == 0 || (int64_t)t < *c)
        *c = (int64_t)t;
}

static inline void io_last_time(int64_t *c, uint64_t t)
{
    if ((int64_t)t > *c)
        *c = (int64_t)t;
}

/* COUNTER += 1, meta time += t1 - t0; open/close also set their timestamps.
 * Inline: an open, a close and a stat each make one, with constant kinds. */
enum io_meta { IO_META_OPEN, IO_META_CLOSE, IO_META_OTHER };
static inline void io_count_meta(int32_t rec, bool stdio, int counter, enum io_meta kind, uint64_t t0, uint64_t t1)
{
    struct tally_io_record *r = io_rec(rec);
    int64_t *c = r->counter;
    bool locked = io_record_lock(r);
    if (counter >= 0)
        c[counter]++;
    c[stdio ? STDIO_F_META_TIME : POSIX_F_META_TIME] += (int64_t)(t1 - t0);
    if (kind == IO_META_OPEN) {
        io_first_time(&c[stdio ? STDIO_F_OPEN_START_TIMESTAMP : POSIX_F_OPEN_START_TIMESTAMP], t0);
        io_last_time(&c[stdio ? STDIO_F_OPEN_END_TIMESTAMP : POSIX_F_OPEN_END_TIMESTAMP], t1);
    } else if (kind == IO_META_CLOSE) {
        io_first_time(&c[stdio ? STDIO_F_CLOSE_START_TIMESTAMP : POSIX_F_CLOSE_START_TIMESTAMP], t0);
        io_last_time(&c[stdio ? STDIO_F_CLOSE_END_TIMESTAMP : POSIX_F_CLOSE_END_TIMESTAMP], t1);
    }
    io_record_unlock(r, locked);
}

/* Bytes on a descriptor not opened under the helper. */
void io_count_other_fd(enum io_op op, int64_t bytes);

#endif
