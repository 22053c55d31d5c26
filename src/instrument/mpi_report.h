/* What 'tally mpi report' and 'tally mpi predict' read from summaries
 * (mpi_summary.h's `mpi` object and the run's own fields), as values and
 * JSON; the command (cli/mpi.c) keeps its options, text and messages. */
#ifndef TALLY_INSTRUMENT_MPI_REPORT_H
#define TALLY_INSTRUMENT_MPI_REPORT_H

#include <jansson.h>
#include <stddef.h>

#include "instrument/analysis.h"

/* NAME (PREFIX or PREFIX.summary) loaded and analysed: 0 with the summary
 * in *summary (caller owns it) and a filled; -1 with "PATH: why" or
 * "NAME: why" in err. */
int mpi_report_load(const char *name, struct mpi_analysis *a, json_t **summary, char *why, size_t why_size);

/* The measured ranks grouped by host, hosts in order of their first rank:
 * [{"name", "ranks": [...], "comm_time", "wait_time", "compute_time",
 *   "clock_offset" (mpi.hosts', when the run spanned hosts)}]. */
json_t *mpi_report_hosts(const struct mpi_analysis *a, const json_t *mpi);

/* The JSON report of 'tally mpi report --format json' for the run whose
 * summary is SUMMARY; WITH (may be NULL) adds formula (2) with that run. */
json_t *mpi_report_json(const struct mpi_analysis *a, const json_t *summary, const struct mpi_analysis *with);

/* With --window request, the fewest and most recording periods of a rank
 * (mpi.per_rank[].periods); both -1 when no rank counts periods. */
void mpi_report_periods(const json_t *mpi, long long *min, long long *max);

/* The progress rate (mpi.window.time_per_iteration) of a summary, <= 0
 * when it has none. */
double mpi_time_per_iteration(const json_t *summary);

/* A summary's wall_time, <= 0 when it has none. */
double mpi_wall_time(const json_t *summary);

/* T_b from the clocks of A's run beside B (A2) and of B's run when both are
 * summaries with start and end; else B's wall time (B assumed started with
 * A). *how says which. */
double mpi_other_time(const json_t *a2, const json_t *b, double b_wall, const char **how);

/* S_a is a slowdown beside B only when A's window lies inside B's run: from
 * all of B's ranks past MPI_Init to the first in MPI_Finalize (mpi.started,
 * mpi.finalizing), else B's start and end. 0 when it does; -1 with the
 * reason in why (naming the runs A2_NAME and B_NAME) when it does not, or
 * when the summaries cannot tell. */
int mpi_window_inside(const json_t *a2, const char *a2_name, const json_t *b, const char *b_name, char *why,
                      size_t why_size);

#endif
