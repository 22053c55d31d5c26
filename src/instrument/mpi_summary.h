/* The `mpi` and `probes` objects of PREFIX.summary, made from the segments
 * a run's processes left (issue 9's form):
 *   {"ranks": N, "library": "Open MPI 4.1.4",
 *    "functions": {"MPI_Send": {"calls": n, "time": [s, "s"], "bytes": [b, "B"]}, ...},
 *    "links": [{"from": 0, "to": 1, "bytes": b, "messages": n}, ...],
 *    "per_rank": [{"rank": 0, "host": h, "pid": p, "comm_time": [s, "s"],
 *                  "wait_time": [s, "s"], "compute_time": [s, "s"], ...}, ...],
 *    "comm_ratio": T_c / (t2 - t1 - T_c), "comm_fraction": T_c / (t2 - t1),
 *    "started": [epoch s, "s"], "finalizing": [epoch s, "s"],
 *    "window": {..., "opened": [epoch s, "s"], "closed": [epoch s, "s"]},
 *    "counters": {...} (perf_summary.h), "warnings": ["..."]}
 * Sums over ranks; t1, t2 per rank are the window's opening and closing (the
 * whole run: MPI_Init's return and MPI_Finalize's entry). */
#ifndef TALLY_INSTRUMENT_MPI_SUMMARY_H
#define TALLY_INSTRUMENT_MPI_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>

#include "instrument/segments.h"

/* What was asked (tally run --window, --marker). */
struct window_spec {
    bool set;                 /* a window was asked; else the whole run */
    long long start;          /* open after this many marker hits */
    long long iterations;     /* measure this many (0: to the end) */
    double time_limit;        /* seconds, 0: none */
    long long call_limit;     /* recorded MPI calls, 0: none */
    const char *marker;       /* uprobe marker symbol, or NULL (tally_mark) */
    bool by_request;          /* --window request: off until the agent switches it (periods) */
    bool rank_per_run;        /* each rank has a run of its own (Slurm started the ranks): one
                                 rank of N is all a run expects, not a missing rank */
};

/* The `mpi` object, or NULL when no process registered as an MPI rank.
 * Problems (a window that never opened, a rank that aborted or vanished)
 * are strings in its "warnings" array. epoch_offset: seconds to add to the
 * segments' CLOCK_MONOTONIC times to get epoch seconds (started: the last
 * rank's MPI_Init return, finalizing: the first rank's MPI_Finalize entry,
 * window.opened and .closed: on the clock of the summary's start and end). */
json_t *mpi_summary_json(const struct segment_set *set, const struct window_spec *w, double epoch_offset);
/* The `probes` object (per process: marker, probes, counters, and the
 * process's perf counters as "perf_counters", perf_summary.h; the same
 * status and sums for the run), or NULL when no process used
 * libtally-probe's API. */
json_t *probes_summary_json(const struct segment_set *set);

#endif
