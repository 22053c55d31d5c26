/* The shared-memory segment between an instrumented process (libtally-probe,
 * libtally-mpi) and the monitoring side (src/instrument/, tally run). Not for
 * applications: they use tally/probe.h. See docs/instrumentation.md.
 *
 * One file per process, DIR/PID.seg, DIR = $TALLY_PROBE_DIR (tmpfs). Page 0
 * is the control page: the process maps it over a page-aligned page of each
 * library's own data, so the instrumented fast path reads one word at a
 * link-time address (one load, one branch). The data area follows. Nothing
 * is sent per event: the monitor maps or reads the file. */
#ifndef TALLY_SEGMENT_H
#define TALLY_SEGMENT_H

#include <stdint.h>

#define TALLY_SEG_MAGIC 0x31474553594c4154ULL /* "TALLYSEG1" little-endian, 8 bytes */
#define TALLY_SEG_VERSION 4
#define TALLY_SEG_PAGE 4096
#define TALLY_SEG_MAX_PROBES 64
#define TALLY_SEG_MAX_COUNTERS 64
#define TALLY_SEG_MAX_RANKS 4096
#define TALLY_SEG_NAME 48

/* Bits of control.on: what is being recorded now. PENDING: a monitor
 * changed the others; the process acknowledges (control.ack) and switches
 * its window counters at its next MPI call or marker hit, then clears it. */
enum { TALLY_ON_PROBES = 1u, TALLY_ON_MPI = 2u, TALLY_ON_PENDING = 0x80000000u };
#define TALLY_ON_ANY (TALLY_ON_PROBES | TALLY_ON_MPI)

/* window.state */
enum { TALLY_WINDOW_NONE = 0, TALLY_WINDOW_WAITING, TALLY_WINDOW_OPEN, TALLY_WINDOW_CLOSED };

/* window.how: opened at a marker hit (that iteration is in the window);
 * closed by the program's end (its last iteration is complete). Iterations
 * measured = hits_off - hits_on, plus 1 when both. */
enum { TALLY_WINDOW_OPENED_AT_HIT = 1u, TALLY_WINDOW_CLOSED_AT_END = 2u };

/* How the window is driven: by the process's own marker hits (and limits),
 * or by a monitor writing control.on: tally run's uprobe marker thread, or
 * the agent on request (proc_record_start/stop, or while a csr wants the
 * process's events), possibly over several recording periods. */
enum { TALLY_WINDOW_BY_MARKER = 0, TALLY_WINDOW_BY_MONITOR = 1, TALLY_WINDOW_BY_REQUEST = 2 };

/* The MPI functions recorded, in a fixed order shared by both sides. */
#define TALLY_MPI_FUNCTIONS(X)                                                    \
    X(Init) X(Init_thread) X(Finalize) X(Abort)                                   \
    X(Send) X(Ssend) X(Bsend) X(Rsend) X(Recv) X(Sendrecv) X(Sendrecv_replace)    \
    X(Probe) X(Isend) X(Issend) X(Irecv) X(Iprobe)                                \
    X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome) \
    X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Gather) X(Gatherv) X(Scatter)    \
    X(Scatterv) X(Allgather) X(Allgatherv) X(Alltoall) X(Alltoallv) X(Reduce_scatter) \
    X(Scan)                                                                       \
    X(File_open) X(File_close) X(File_sync) X(File_set_view) X(File_seek)         \
    X(File_read) X(File_read_at) X(File_read_all) X(File_read_at_all)             \
    X(File_iread) X(File_iread_at)                                                \
    X(File_write) X(File_write_at) X(File_write_all) X(File_write_at_all)         \
    X(File_iwrite) X(File_iwrite_at)

/* MPI-IO per file (libtally-mpi's wrappers_io.c), Darshan's MPIIO names:
 * opens on a communicator of one rank are independent; reads and writes
 * independent (read, read_at), collective (_all), non-blocking (i*);
 * bytes as asked (count x type size); times in ns (meta: open, close,
 * sync, set_view, seek). */
#define TALLY_MPIIO_COUNTERS(X)                                                    \
    X(MPIIO_INDEP_OPENS) X(MPIIO_COLL_OPENS) X(MPIIO_INDEP_READS) X(MPIIO_INDEP_WRITES) \
    X(MPIIO_COLL_READS) X(MPIIO_COLL_WRITES) X(MPIIO_NB_READS) X(MPIIO_NB_WRITES)  \
    X(MPIIO_SYNCS) X(MPIIO_VIEWS) X(MPIIO_BYTES_READ) X(MPIIO_BYTES_WRITTEN)       \
    X(MPIIO_F_READ_TIME) X(MPIIO_F_WRITE_TIME) X(MPIIO_F_META_TIME)
#define TALLY_MPIIO_ENUM(name) TALLY_##name,
enum tally_mpiio_counter { TALLY_MPIIO_COUNTERS(TALLY_MPIIO_ENUM) TALLY_MPIIO_COUNTER_COUNT };
#undef TALLY_MPIIO_ENUM
#define TALLY_SEG_MAX_IO_FILES 64    /* MPI-IO files per rank; later ones counted in io_files_past_bound */
#define TALLY_SEG_IO_PATH 200

#define TALLY_MPI_ENUM(name) TALLY_MPI_##name,
enum tally_mpi_function { TALLY_MPI_FUNCTIONS(TALLY_MPI_ENUM) TALLY_MPI_FUNCTION_COUNT };
#undef TALLY_MPI_ENUM

struct tally_seg_control {          /* page 0 */
    volatile uint32_t on;           /* TALLY_ON_* bits: the word the fast path loads */
    uint32_t version;
    volatile uint64_t magic;        /* written last at registration */
    volatile uint64_t request;      /* monitor: incremented at each change of 'on' it makes */
    volatile uint64_t ack;          /* process: copies 'request' at its next recorded call */
    volatile uint64_t ack_ns;       /* process: when it did (CLOCK_MONOTONIC ns) */
};

struct tally_seg_window {
    int64_t start;                  /* open at marker hit start+1 */
    int64_t iterations;             /* close at hit start+1+iterations; 0: at the end */
    int64_t time_limit_ns;          /* close this long after opening; 0: none */
    int64_t call_limit;             /* close after this many recorded MPI calls; 0: none */
    uint32_t mask;                  /* TALLY_ON_* bits the window switches */
    uint32_t driver;                /* TALLY_WINDOW_BY_* */
    volatile uint32_t state;        /* TALLY_WINDOW_* */
    uint32_t how;                   /* TALLY_WINDOW_OPENED_AT_HIT | TALLY_WINDOW_CLOSED_AT_END */
    uint64_t t_on, t_off;           /* CLOCK_MONOTONIC ns: the last period's opening and closing */
    uint64_t hits_on, hits_off;     /* marker hits at the last period's opening and closing */
    uint64_t calls;                 /* recorded MPI calls while open */
    uint64_t periods;               /* recording periods opened (1 but for BY_REQUEST) */
    uint64_t t_first_on;            /* the first period's opening */
    uint64_t on_ns;                 /* the closed periods' total length */
    uint64_t hits_in;               /* marker hits inside the closed periods */
};

/* The process's own counters (perf_event_open on the thread that registered,
 * lib/probe/perf_counters.c), in this order. Hardware first; the software
 * events exist on every Linux. */
enum tally_seg_perf_event {
    TALLY_PERF_INSTRUCTIONS, TALLY_PERF_CYCLES,
    TALLY_PERF_TASK_CLOCK,          /* ns on a CPU */
    TALLY_PERF_PAGE_FAULTS, TALLY_PERF_CONTEXT_SWITCHES,
    TALLY_PERF_EVENT_COUNT
};
#define TALLY_PERF_HARDWARE_MASK ((1u << TALLY_PERF_INSTRUCTIONS) | (1u << TALLY_PERF_CYCLES))

struct tally_seg_perf {
    int32_t hardware_errno;         /* 0: hardware events counted, else perf_event_open's errno */
    int32_t software_errno;         /* the same for the software events */
    uint32_t opened;                /* bit per tally_seg_perf_event counted */
    uint32_t user_only;             /* the kernel refused kernel-mode counting (perf_event_paranoid) */
    uint32_t window_read, run_read; /* 1 once window[] / run[] hold values */
    uint64_t window[TALLY_PERF_EVENT_COUNT]; /* while the window was open */
    uint64_t run[TALLY_PERF_EVENT_COUNT];    /* registration to MPI_Finalize's entry (or exit) */
};

struct tally_seg_probe {
    char name[TALLY_SEG_NAME];
    uint64_t hits;
    uint64_t t_first, t_last;
};

struct tally_seg_counter {
    char name[TALLY_SEG_NAME];
    int64_t value;
};

struct tally_seg_function {
    uint64_t calls;
    uint64_t ns;                    /* time inside the call */
    uint64_t bytes;                 /* see docs/instrumentation.md for the byte rules */
};

struct tally_seg_io_file {
    char path[TALLY_SEG_IO_PATH];   /* as MPI_File_open got it, made absolute; cut at 199 bytes */
    uint64_t handle;                /* the open MPI_File, 0 once closed */
    uint64_t counter[TALLY_MPIIO_COUNTER_COUNT];
};

struct tally_seg_link {
    uint64_t bytes, messages;       /* this rank → links[i]'s rank */
};

enum { TALLY_SEG_MPI = 1u, TALLY_SEG_FINISHED = 2u, TALLY_SEG_ABORTED = 4u,
       TALLY_SEG_LINKS_TRUNCATED = 8u };

struct tally_seg_data {             /* from page 1 */
    int32_t pid, rank, ranks;       /* rank -1 outside MPI */
    volatile uint32_t flags;        /* TALLY_SEG_* */
    char host[64];
    char library[96];               /* MPI library version line */
    char exe[256];
    uint64_t t_register, t_init_end, t_finalize, t_exit;  /* CLOCK_MONOTONIC ns */
    volatile uint64_t marker_hits;
    uint64_t marker_t_first, marker_t_last;
    struct tally_seg_window window;
    uint64_t comm_ns;               /* time in MPI calls while recording (not Init/Finalize) */
    uint64_t wait_ns;               /* of which in blocking calls */
    struct tally_seg_perf perf;
    uint32_t probe_count, counter_count;
    struct tally_seg_probe probes[TALLY_SEG_MAX_PROBES];
    struct tally_seg_counter counters[TALLY_SEG_MAX_COUNTERS];
    struct tally_seg_function functions[TALLY_MPI_FUNCTION_COUNT];
    struct tally_seg_link links[TALLY_SEG_MAX_RANKS];
    /* after links: not in a multi-host gather's copy (agent_launch.c sends
     * the data up to links), read where the segment is (tally run) */
    uint32_t io_file_count;
    uint32_t io_opens_past_bound;   /* MPI_File_open calls past TALLY_SEG_MAX_IO_FILES files */
    struct tally_seg_io_file io_files[TALLY_SEG_MAX_IO_FILES];
};

struct tally_segment {
    union { struct tally_seg_control c; char page[TALLY_SEG_PAGE]; } control;
    struct tally_seg_data d;
};

#define TALLY_SEG_SIZE (((sizeof(struct tally_segment) + TALLY_SEG_PAGE - 1) / TALLY_SEG_PAGE) * TALLY_SEG_PAGE)

#endif
