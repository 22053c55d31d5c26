/* The process side of the shared-memory segment (include/tally/segment.h),
 * shared by libtally-probe and libtally-mpi (which links against it). The
 * tally__ names are exported for libtally-mpi only: not a public API. */
#ifndef TALLY_LIB_SEGMENT_CLIENT_H
#define TALLY_LIB_SEGMENT_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "tally/segment.h"

#define TALLY_EXPORT __attribute__((visibility("default")))

/* CLOCK_MONOTONIC in ns, through the vDSO (no system call). */
static inline uint64_t tally__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The registered segment, registering now when $TALLY_PROBE_DIR is set and
 * this process has none yet; NULL outside a monitor (then never retried). */
TALLY_EXPORT struct tally_segment *tally__segment(void);
/* Registration by libtally-mpi after MPI_Init: rank, size, library line. */
TALLY_EXPORT struct tally_segment *tally__segment_register_mpi(int rank, int ranks, const char *library);
/* PAGE (TALLY_SEG_PAGE bytes, page-aligned, zero) becomes a view of the
 * control page once the process registers (at once if it already has). */
TALLY_EXPORT void tally__segment_map_control(void *page);
/* Window transitions, at marker hit `hits` and time `now`. */
TALLY_EXPORT void tally__window_open(struct tally_segment *s, uint64_t now);
TALLY_EXPORT void tally__window_close(struct tally_segment *s, uint64_t now);
/* A monitor switched recording (TALLY_ON_PENDING was set): clears PENDING,
 * acknowledges the request and switches the window counters to match.
 * Returns the control word now (without PENDING). */
TALLY_EXPORT uint32_t tally__acknowledge(struct tally_segment *s);
/* remote.c: where this process's segment goes. 1: in probe_dir (the
 * monitor is on this host); 0: in dir, on this host, registered with this
 * host's agent (the monitor is on another host, or probe_dir is not
 * reachable here); -1: nowhere (said once per host on stderr). rank: for
 * the message (-1: not known). */
int tally__remote_dir(const char *probe_dir, int rank, char *dir, size_t len);
/* Tells the monitor something happened: creates DIR/PID.WHAT (one open). */
TALLY_EXPORT void tally__notify(const char *what);

#endif
