/* Internal to libtally-io, the level-3 I/O helper (docs/io.md): the state
 * shared by its parts — the process's region (include/tally/io_segment.h),
 * the per-descriptor table, the reentrancy guard and the counter updates —
 * and REAL(), the next definition of a wrapped function (dlsym RTLD_NEXT,
 * looked up at its first use: a short process pays only for what it calls).
 * Process-global state is the nature of a preloaded library: one region per
 * process image. */
#ifndef TALLY_LIB_IO_H
#define TALLY_LIB_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "tally/io_segment.h"

#define IO_EXPORT __attribute__((visibility("default")))

/* The next definition of NAME after this library's, resolved once. Each
 * wrapper file declares `static __typeof__(&NAME) real_NAME;` via DECLARE_REAL. */
void *io_next_symbol(const char *name);
#define DECLARE_REAL(name) static __typeof__(&name) real_##name
#define REAL(name)                                                            \
    (*({                                                                      \
        if (!real_##name)                                                     \
            real_##name = (__typeof__(real_##name))io_next_symbol(#name);     \
        real_##name;                                                          \
    }))

/* The region of this process image; NULL outside a tally run (no
 * $TALLY_IO_DIR) or before the constructor: everything passes through. */
extern struct tally_io_header *io_region;

/* What the helper knows of one descriptor: its POSIX record and offset,
 * and the record and offset of a stdio stream on it (1-based record index,
 * 0: none). */
struct io_fd {
    int32_t rec, srec;
    int64_t offset, soffset;
    int32_t probed;     /* a descriptor found open (inherited): looked up once */
};
#define IO_MAX_FDS 65536
/* NULL for a descriptor beyond the table. */
struct io_fd *io_fd_slot(int fd);
/* The highest descriptor ever given a slot (the fork rebuild walks up to it). */
extern int io_fd_high;

/* Enters the accounting part of a wrapper: false (and the call is counted
 * in unseen_calls) when this thread is already inside it, i.e. a signal
 * handler interrupted the helper; false without a region. */
bool io_enter(void);
void io_leave(void);

static inline uint64_t io_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The record of PATH (relative to DIRFD as openat takes it), taken at its
 * first sight; the incomplete record when the table is full. 1-based. */
int32_t io_record_for(int dirfd, const char *path);
/* A descriptor the helper did not see opened (inherited across exec, as
 * `prog > out.txt` gives): its file's record, looked up once through
 * /proc/self/fd; 0 for a pipe, a socket or anything not a path. */
int32_t io_record_of_inherited(int fd, struct io_fd *slot);
/* The record of an absolute, already normal path. */
int32_t io_record_for_abs(const char *abs);
/* The record named NAME as is ("<STDOUT>"). */
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
/* COUNTER += 1, meta time += t1 - t0; open/close also set their timestamps. */
enum io_meta { IO_META_OPEN, IO_META_CLOSE, IO_META_OTHER };
void io_count_meta(int32_t rec, bool stdio, int counter, enum io_meta kind, uint64_t t0, uint64_t t1);
/* Bytes on a descriptor not opened under the helper. */
void io_count_other_fd(enum io_op op, int64_t bytes);

/* $TALLY_IO_DIR as it was at the start. */
const char *io_directory(void);
/* Process end: end time, rusage and FLAGS (async-signal-safe). */
void io_process_end(uint32_t flags);
/* Before an execve: the environment given to the new image, with the
 * helper's LD_PRELOAD and TALLY_IO_DIR put back when missing. OUT has room
 * for count(envp) + 3 pointers, BUF for the joined LD_PRELOAD. */
char *const *io_child_env(char *const envp[], char **out, char *buf, size_t buflen);
size_t io_env_count(char *const envp[]);
void io_exec_begin(const char *path);
void io_exec_failed(void);
void io_exec_prepare(void);

#endif
