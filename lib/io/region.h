/* Internal to libtally-io, the level-3 I/O helper (docs/io.md), its bottom
 * layer, which calls nothing else of the helper: the region of this process
 * image (include/tally/io_segment.h) and how one is claimed, the
 * per-descriptor table, the reentrancy guard, the clock, and REAL(), the
 * next definition of a wrapped function (dlsym RTLD_NEXT, looked up at its
 * first use: a short process pays only for what it calls). Above it:
 * records.h (files and counters), exec.h (the environment across exec),
 * then the wrappers and process.c (start, fork, end). Process-global state
 * is the nature of a preloaded library: one region per process image. */
#ifndef TALLY_LIB_IO_REGION_H
#define TALLY_LIB_IO_REGION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>

#include "tally/io_segment.h"

#define IO_EXPORT __attribute__((visibility("default")))
/* The few variables a forked child writes, placed together in .data (the
 * page the loader's relocations already wrote): the child copies one page. */
#define IO_HOT __attribute__((section(".data")))

/* The next definition of NAME after this library's, resolved once. Each
 * wrapper file declares `static __typeof__(&NAME) real_NAME;` via DECLARE_REAL. */
void *io_next_symbol(const char *name);
#define DECLARE_REAL(name) static __typeof__(&name) real_##name IO_HOT
#define REAL(name)                                                            \
    (*({                                                                      \
        if (!real_##name)                                                     \
            real_##name = (__typeof__(real_##name))io_next_symbol(#name);     \
        real_##name;                                                          \
    }))

/* The region of this process image; NULL outside a tally run (no
 * $TALLY_IO_DIR) or before the constructor: everything passes through. */
extern struct tally_io_header *io_region;

/* A system call made without libc: it sets no errno and touches no page of
 * libc's text (a short process, or a fork child, faults in every page it
 * calls: the helper's start and fork path call nothing of libc). Returns
 * the result, or -errno. */
#if defined(__x86_64__) && !defined(IO_SYS_LIBC)
static inline long io_sys6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
#else
/* sys.c: through libc's syscall() (IO_SYS_LIBC: on x86-64 too, for its test) */
long io_sys6(long n, long a, long b, long c, long d, long e, long f);
#endif
#define io_sys(n, ...) io_sys_(n, __VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define io_sys_(n, a, b, c, d, e, f, ...) io_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define io_sys0(n) io_sys6((n), 0, 0, 0, 0, 0, 0)
/* getpid without libc (a vfork child's differs from its region's). */
#define io_getpid() ((pid_t)io_sys0(SYS_getpid))

/* Copies the string SRC into DST (room for MAX bytes, NUL included),
 * truncating; returns its length. A byte loop the compiler cannot turn
 * into a call to libc (see io_sys). */
size_t io_copy_str(char *dst, const char *src, size_t max);

/* $TALLY_IO_DIR as it was at the start ("" outside a run). */
const char *io_directory(void);
/* Keeps DIR (at the start); false when it is empty or too long. */
bool io_directory_set(const char *dir);
/* A region for this image, with FLAGS: a slot of the run file, else a
 * file of its own; NULL when neither could be had. The executable's name is
 * read from /proc/self/exe once per image and kept: a forked child (flag
 * TALLY_IO_FORKED) copies it from its own memory. */
struct tally_io_header *io_region_claim(uint32_t flags);
/* A vfork child about to exec (it runs on its parent's memory, and has no
 * region of its own): a region for it, claimed, noting the exec and its
 * TARGET (so that a target the helper cannot enter is still counted and
 * named), then unmapped at once. The new image claims its own if it can. */
void io_region_note_vfork_exec(const char *target);
/* Before a fork (in the parent, with one thread): keeps the next few slots
 * of the run file mapped, so that the child claims its slot with no system
 * call when it is the next one claimed (io_region_claim). */
void io_region_fork_window(void);
/* Gives back a region mapping (a forked child's copy of its parent's). */
void io_region_unmap(struct tally_io_header *h);

/* What the helper knows of one descriptor: its POSIX record and offset,
 * and the record and offset of a stdio stream on it (1-based record index,
 * 0: none). */
struct io_fd {
    int32_t rec, srec;
    int64_t offset, soffset;
    int32_t probed;     /* a descriptor found open (inherited): looked up once */
};
#define IO_MAX_FDS 65536
/* The table (fds.c) and the highest descriptor ever given a slot (the fork
 * rebuild walks up to it). */
extern struct io_fd io_fds[IO_MAX_FDS] __attribute__((visibility("hidden")));
extern int io_fd_high __attribute__((visibility("hidden")));
/* NULL for a descriptor beyond the table. Inline: every wrapped call on a
 * descriptor looks its slot up. */
static inline struct io_fd *io_fd_slot(int fd)
{
    if ((unsigned)fd >= IO_MAX_FDS)
        return NULL;
    if (fd > io_fd_high)
        io_fd_high = fd;
    return &io_fds[fd];
}

/* This thread is inside the helper's accounting (region.c). */
extern __thread int io_busy_flag __attribute__((tls_model("initial-exec")));

/* Enters the accounting part of a wrapper: false (and the call is counted
 * in unseen_calls) when this thread is already inside it, i.e. a signal
 * handler interrupted the helper; false without a region. Inline: it runs
 * at every wrapped call. */
static inline bool io_enter(void)
{
    if (!io_region)
        return false;
    if (io_busy_flag) {
        __atomic_fetch_add(&io_region->unseen_calls, 1, __ATOMIC_RELAXED);
        return false;
    }
    io_busy_flag = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return true;
}

static inline void io_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    io_busy_flag = 0;
}

/* Marks this thread busy (or not) without the checks: the helper's own start and fork. */
static inline void io_busy(int on)
{
    io_busy_flag = on;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Wall-clock time, ns since the epoch (vDSO): a process's start and end. */
static inline uint64_t io_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock of the counters' times and timestamps, read twice per wrapped
 * call: the time-stamp counter on x86 (a third of clock_gettime's cost
 * here), which the reader turns into ns from the region's start
 * (start_ns, start_ticks: TALLY_IO_TICKS_TSC); elsewhere io_now. */
#if defined(__x86_64__) || defined(__i386__)
#define IO_TICKS_KIND TALLY_IO_TICKS_TSC
static inline uint64_t io_ticks(void)
{
    return __builtin_ia32_rdtsc();
}
#else
#define IO_TICKS_KIND TALLY_IO_TICKS_NS
static inline uint64_t io_ticks(void)
{
    return io_now();
}
#endif

#endif
