/* The shared-memory region between libtally-io (the level-3 I/O helper
 * preloaded into every process of a task, lib/io/) and the monitor
 * (src/instrument/io_segments.c, src/monitor/helper_reports.c). Not for
 * applications. See docs/io.md.
 *
 * One region per process image, in DIR = $TALLY_IO_DIR (tmpfs): a header
 * page, then TALLY_IO_CAPACITY file records and one more, the "incomplete"
 * record, in which the counters of every file past the bound are summed
 * (never dropped). tmpfs gives pages only as they are touched.
 *
 * Where the regions are: slots of one sparse run file, DIR/io.slots (a
 * struct tally_io_run page and the helper's cache of executables' names,
 * then TALLY_IO_SLOTS slots of TALLY_IO_SLOT
 * bytes). An image claims the next slot with one atomic increment of
 * `taken`, maps it and closes the descriptor at once: it holds no
 * descriptor the program could close or dup2 onto. The first image of a
 * run creates the file (under a private name, linked into place: a
 * racing image sees it complete or not at all). Images past the slots
 * (or when the run file cannot be had) get a file of their own,
 * DIR/io.PID.N (N = 0, 1, ... for the images a pid runs through exec),
 * holding one region. An image's number is the order of its region among
 * its pid's (the reader numbers slots by claim order). */
#ifndef TALLY_IO_SEGMENT_H
#define TALLY_IO_SEGMENT_H

#include <stdint.h>

#define TALLY_IO_MAGIC 0x314f494c4c4154ULL /* "TALLIO1" */
#define TALLY_IO_VERSION 3
#define TALLY_IO_HEADER 4096
#define TALLY_IO_RECORD 1024
#define TALLY_IO_CAPACITY 1024        /* files recorded per process image */
#define TALLY_IO_PATH 400
#define TALLY_IO_SIZE (TALLY_IO_HEADER + (TALLY_IO_CAPACITY + 1) * TALLY_IO_RECORD)
#define TALLY_IO_INCOMPLETE_NAME "<incomplete>"
#define TALLY_IO_RUN_FILE "io.slots"
#define TALLY_IO_RUN_MAGIC 0x31544f4c53494f54ULL /* "TIOSLOT1" */
#define TALLY_IO_EXE_CACHE 32          /* executables' names kept in the run file */
#define TALLY_IO_EXE_ENTRY 2048
#define TALLY_IO_EXE_KEY 512
#define TALLY_IO_RUN_HEADER (4096 + TALLY_IO_EXE_CACHE * TALLY_IO_EXE_ENTRY)
#define TALLY_IO_SLOT (((TALLY_IO_SIZE) + 4095) / 4096 * 4096) /* page-aligned */
#define TALLY_IO_SLOTS 65536u         /* images per run file (sparse: ~66 GiB apparent) */

/* How two processes' values of a counter merge, and how one is shown:
 * S a count or bytes (summed), M a largest offset (max), T0 the time of the
 * first operation (earliest, epoch ns), T1 of the last (latest), D a time
 * spent (summed, ns), DM the longest single operation (max, ns). */
enum { TALLY_IO_S, TALLY_IO_M, TALLY_IO_T0, TALLY_IO_T1, TALLY_IO_D, TALLY_IO_DM };

/* The counters, named as Darshan's POSIX and STDIO modules name them. */
#define TALLY_IO_SIZE_BUCKETS(X, OP)                                                    \
    X(POSIX_SIZE_##OP##_0_100, S) X(POSIX_SIZE_##OP##_100_1K, S)                        \
    X(POSIX_SIZE_##OP##_1K_10K, S) X(POSIX_SIZE_##OP##_10K_100K, S)                     \
    X(POSIX_SIZE_##OP##_100K_1M, S) X(POSIX_SIZE_##OP##_1M_4M, S)                       \
    X(POSIX_SIZE_##OP##_4M_10M, S) X(POSIX_SIZE_##OP##_10M_100M, S)                     \
    X(POSIX_SIZE_##OP##_100M_1G, S) X(POSIX_SIZE_##OP##_1G_PLUS, S)

#define TALLY_IO_COUNTERS(X)                                                             \
    X(POSIX_OPENS, S) X(POSIX_DUPS, S) X(POSIX_READS, S) X(POSIX_WRITES, S)              \
    X(POSIX_SEEKS, S) X(POSIX_STATS, S) X(POSIX_MMAPS, S) X(POSIX_FSYNCS, S)             \
    X(POSIX_FDSYNCS, S) X(POSIX_BYTES_READ, S) X(POSIX_BYTES_WRITTEN, S)                 \
    X(POSIX_MAX_BYTE_READ, M) X(POSIX_MAX_BYTE_WRITTEN, M)                               \
    X(POSIX_CONSEC_READS, S) X(POSIX_CONSEC_WRITES, S) X(POSIX_SEQ_READS, S)             \
    X(POSIX_SEQ_WRITES, S) X(POSIX_RW_SWITCHES, S)                                       \
    TALLY_IO_SIZE_BUCKETS(X, READ) TALLY_IO_SIZE_BUCKETS(X, WRITE)                       \
    X(POSIX_F_OPEN_START_TIMESTAMP, T0) X(POSIX_F_READ_START_TIMESTAMP, T0)              \
    X(POSIX_F_WRITE_START_TIMESTAMP, T0) X(POSIX_F_CLOSE_START_TIMESTAMP, T0)            \
    X(POSIX_F_OPEN_END_TIMESTAMP, T1) X(POSIX_F_READ_END_TIMESTAMP, T1)                  \
    X(POSIX_F_WRITE_END_TIMESTAMP, T1) X(POSIX_F_CLOSE_END_TIMESTAMP, T1)                \
    X(POSIX_F_READ_TIME, D) X(POSIX_F_WRITE_TIME, D) X(POSIX_F_META_TIME, D)             \
    X(POSIX_F_MAX_READ_TIME, DM) X(POSIX_F_MAX_WRITE_TIME, DM)                           \
    X(STDIO_OPENS, S) X(STDIO_FDOPENS, S) X(STDIO_READS, S) X(STDIO_WRITES, S)           \
    X(STDIO_SEEKS, S) X(STDIO_FLUSHES, S) X(STDIO_BYTES_READ, S)                         \
    X(STDIO_BYTES_WRITTEN, S) X(STDIO_MAX_BYTE_READ, M) X(STDIO_MAX_BYTE_WRITTEN, M)     \
    X(STDIO_F_OPEN_START_TIMESTAMP, T0) X(STDIO_F_READ_START_TIMESTAMP, T0)              \
    X(STDIO_F_WRITE_START_TIMESTAMP, T0) X(STDIO_F_CLOSE_START_TIMESTAMP, T0)            \
    X(STDIO_F_OPEN_END_TIMESTAMP, T1) X(STDIO_F_READ_END_TIMESTAMP, T1)                  \
    X(STDIO_F_WRITE_END_TIMESTAMP, T1) X(STDIO_F_CLOSE_END_TIMESTAMP, T1)                \
    X(STDIO_F_READ_TIME, D) X(STDIO_F_WRITE_TIME, D) X(STDIO_F_META_TIME, D)

#define TALLY_IO_ENUM(name, kind) name,
enum tally_io_counter { TALLY_IO_COUNTERS(TALLY_IO_ENUM) TALLY_IO_COUNTER_COUNT };
#undef TALLY_IO_ENUM

/* header.ticks: TSC, the x86 time-stamp counter (the reader turns a
 * timestamp t into anchor_ns + (t - anchor_ticks) ns-per-tick, measuring
 * the rate itself against CLOCK_REALTIME since the anchor); NS, ns since
 * the epoch. A short process then reads no clock but the counter: its first
 * clock_gettime would cost it the vDSO's page faults. */
enum { TALLY_IO_TICKS_NS = 0, TALLY_IO_TICKS_TSC = 1 };

/* header.flags */
enum {
    TALLY_IO_FORKED = 1u,       /* this image began as a fork of a helper process */
    TALLY_IO_ENDED = 2u,        /* exit (or destructors) ran: end_ns and rusage are set */
    TALLY_IO_UNDERSCORE_EXIT = 4u, /* ended by _exit/_Exit (no destructors) */
    TALLY_IO_SIGNALED = 8u,     /* a fatal signal was caught (signal) */
    TALLY_IO_EXEC_PENDING = 16u,/* execve was called; cleared if it returned */
    TALLY_IO_EXIT_CODE = 32u,   /* exit_code is known (exit, _exit) */
};

struct tally_io_header {
    volatile uint64_t magic;    /* written last */
    uint32_t version;
    uint32_t record_size, capacity, image; /* image: 0 in a slot (the reader numbers it) */
    int32_t pid, ppid;
    volatile uint32_t flags;
    int32_t exit_code, signal;
    uint32_t ticks;             /* the unit of start_ticks, end_ticks and the records' times */
    uint64_t start_ns, end_ns;  /* CLOCK_REALTIME ns: 0 from the helper, set by the reader */
    uint64_t start_ticks, end_ticks; /* the image's start and end (end_ticks: with ENDED) */
    uint64_t anchor_ns, anchor_ticks; /* CLOCK_REALTIME and the ticks read together: the
                                     * run file's (a slot), or the image's own (a file) */
    uint64_t utime_ns, stime_ns, maxrss_kb; /* getrusage(RUSAGE_SELF) at the end */
    volatile uint64_t records;  /* records taken, the incomplete one excluded (may pass capacity) */
    volatile uint64_t past_bound; /* opens and stats of files that found no free record */
    volatile uint64_t unseen_calls; /* calls made while the helper was busy in the same
                                     * thread (a signal handler inside a wrapper): passed
                                     * through uncounted, counted here */
    volatile uint64_t other_fd_bytes_read, other_fd_bytes_written; /* on descriptors not
                                     * opened under the helper (inherited pipes, sockets) */
    char exe[1024];             /* /proc/self/exe at the start */
    char exec_target[1024];     /* the path given to the last execve (EXEC_PENDING) */
};

/* The first page of DIR/io.slots. */
struct tally_io_run {
    volatile uint64_t magic;    /* written before the file is linked into place */
    uint32_t version, slot_size, slots, pad;
    volatile uint64_t taken;    /* slots claimed (may pass slots: those images used files) */
    uint64_t anchor_ns, anchor_ticks; /* read together by the run file's creator */
};

/* The helper's own, after the run file's first page (the monitor does not
 * read it): what /proc/self/exe read for an image whose AT_EXECFN (the path
 * its exec was given) was KEY, an absolute path. An image started by the
 * same path takes its name from here instead of reading /proc/self/exe,
 * whose lookup (the new pid's /proc entries made) was the costliest system
 * call of a short process. Entries are added, never changed or removed
 * (open addressing by the key's hash; an entry is used once ready). */
struct tally_io_exe_entry {
    volatile uint64_t hash;     /* 0: free; else the key's hash (never 0) */
    volatile uint32_t ready;    /* key and exe written */
    uint32_t pad;
    char key[TALLY_IO_EXE_KEY];
    char exe[1024];
};
_Static_assert(sizeof(struct tally_io_exe_entry) <= TALLY_IO_EXE_ENTRY, "an exe entry fits");

static inline struct tally_io_exe_entry *tally_io_exe_entry_at(struct tally_io_run *run, uint32_t i)
{
    return (struct tally_io_exe_entry *)((char *)run + 4096 + (uint64_t)i * TALLY_IO_EXE_ENTRY);
}

static inline uint64_t tally_io_slot_offset(uint64_t slot)
{
    return TALLY_IO_RUN_HEADER + slot * (uint64_t)TALLY_IO_SLOT;
}

struct tally_io_record {
    volatile uint32_t lock;     /* the helper's; 0 when read */
    uint32_t path_hash;
    uint32_t last_io;           /* 1 read, 2 write: for RW_SWITCHES */
    uint32_t ready;             /* path written */
    int64_t last_read_end, last_write_end; /* -1: none yet */
    int64_t counter[TALLY_IO_COUNTER_COUNT];
    char path[TALLY_IO_PATH];   /* absolute, truncated to TALLY_IO_PATH-1 bytes */
};

_Static_assert(sizeof(struct tally_io_header) <= TALLY_IO_HEADER, "io header fits its page");
_Static_assert(sizeof(struct tally_io_record) <= TALLY_IO_RECORD, "io record fits");

static inline struct tally_io_record *tally_io_record_at(void *base, uint32_t i)
{
    return (struct tally_io_record *)((char *)base + TALLY_IO_HEADER + (uint64_t)i * TALLY_IO_RECORD);
}

#endif
