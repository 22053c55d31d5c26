/* Per-link communication volumes over time (tally run --mpi --time-series):
 * the monitoring thread samples each rank's cumulative link counters at every
 * interval (reading shared memory: nothing is sent by the ranks), and the
 * samples become a Paje trace whose topology is rank — link — rank, each link
 * a "bandwidth" resource whose usage (category "mpi") is the bytes/s over the
 * pair in both directions, and whose capacity is the highest such rate of any
 * link in the run (so a view compares links). Ranks hang from their hosts
 * (the segment's host). A rank on another host, gathered at the end, gives
 * only its totals: its links show their average rate over the rank's lifetime
 * (link_series_gathered: from its registration to MPI_Finalize, on our clock),
 * not a burst at the gather. tally view draws it.
 * Sample times are kept in whole microseconds since the origin, and each
 * rate is the bytes over the difference of those times: Paje readers print
 * times to the microsecond (pj_dump), and a rate over unrounded times, times
 * a duration the reader rounded, did not give the bytes back when the rate
 * was high (a rank registered late: its bytes so far in one interval). Now
 * rate x duration summed in such a reader is the bytes up to the reader's
 * float precision of the rate (6e-8 relative). */
#ifndef TALLY_INSTRUMENT_LINK_SERIES_H
#define TALLY_INSTRUMENT_LINK_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "instrument/segments.h"
#include "tally/segment.h"

struct link_series;

struct link_series *link_series_new(void);
void link_series_free(struct link_series *s);
/* The series' time origin (before any rank sent anything). */
void link_series_begin(struct link_series *s, double t);
/* Records seg's cumulative link bytes at time t (seconds, any origin; must not decrease). */
void link_series_sample(struct link_series *s, double t, const struct tally_segment *seg);
/* A rank of another host, gathered at the end (only its totals crossed):
 * its cumulative link bytes, spread evenly over its lifetime [from, to]
 * (seconds on the samples' clock; from before the origin counts from it).
 * Call after the last sample. */
void link_series_gathered(struct link_series *s, double from, double to,
                          const struct tally_segment *seg);
/* link_series_gathered for every MPI rank of set not sampled, over its
 * lifetime (registration to MPI_Finalize, on the samples' clock; the whole
 * series, up to now, when it is not known). Begins the series at now when
 * it has not begun. */
void link_series_gathered_set(struct link_series *s, const struct segment_set *set, double now);
/* The series' time origin as given to link_series_begin (the clock of the
 * samples); NAN before it. Its times are seconds since then. */
double link_series_origin(const struct link_series *s);
/* Whether rank was sampled (its host is then known). */
bool link_series_has_rank(const struct link_series *s, int rank);
/* Writes the trace to path (atomically). -1 with a reason in err. */
int link_series_write_paje(const struct link_series *s, const char *path, char *why, size_t why_size);

#endif
